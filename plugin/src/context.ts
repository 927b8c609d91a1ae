/**
 * What a question carries to the sidecar: the active note (its unsaved content), the selection,
 * the neighbourhood, earlier turns, the profile and the context budget. Pure: the plugin reads
 * the editor and the metadata cache and passes plain values in. No `obsidian` import.
 */
import type { AgentRequest } from "./generated/contract";
import type { Neighbourhood } from "./neighbourhood";
import type { VaultAgentSettings } from "./settings";

/** The API's limits (AgentRequest, ActiveNote in the sidecar), kept under with a margin. */
export const MAX_QUESTION_CHARS = 8_000;
export const MAX_NOTE_CHARS = 1_000_000;
export const MAX_SELECTION_CHARS = 100_000;
export const HISTORY_TURNS = 10;
export const HISTORY_CHARS = 4_000;

/** What the question is about, beyond the active note. */
export type Subject =
	| { kind: "selection"; text: string; path: string | null }
	| { kind: "note"; path: string };

export interface QuestionContext {
	/** The note open in the editor; `content` is what the editor holds, unsaved edits included. */
	activeNote: { path: string; content: string | null } | null;
	selection: string | null;
	neighbourhood: Neighbourhood;
}

/** One finished exchange of the conversation. */
export interface Exchange {
	question: string;
	answer: string;
}

/** The question to send when the user asks about a subject without typing one. */
export function defaultQuestion(subject: Subject | null): string | null {
	if (subject?.kind === "selection") return "What do my notes say about this?";
	if (subject?.kind === "note") return "What does this note say, and what is it connected to?";
	return null;
}

/** The `POST /v1/ask` body. */
export function buildAskRequest(
	question: string,
	context: QuestionContext,
	settings: Pick<VaultAgentSettings, "profile" | "contextBudget">,
	earlier: readonly Exchange[] = [],
): AgentRequest {
	const request: AgentRequest = {
		question: question.trim().slice(0, MAX_QUESTION_CHARS),
		context_budget: settings.contextBudget,
	};
	if (context.activeNote) {
		const { path, content } = context.activeNote;
		request.active_note =
			content === null ? { path } : { path, content: content.slice(0, MAX_NOTE_CHARS) };
	}
	if (context.neighbourhood.notes.length > 0) request.neighbourhood = context.neighbourhood.notes;
	if (context.selection?.trim()) request.selection = context.selection.slice(0, MAX_SELECTION_CHARS);
	const history = historyOf(earlier);
	if (history.length > 0) request.history = history;
	if (settings.profile) request.profile = settings.profile;
	return request;
}

/** The last turns as `history`, oldest first, each side clipped. */
export function historyOf(
	earlier: readonly Exchange[],
	turns = HISTORY_TURNS,
	chars = HISTORY_CHARS,
): NonNullable<AgentRequest["history"]> {
	return earlier.slice(-turns).flatMap((exchange) => [
		{ role: "user" as const, content: exchange.question.slice(0, chars) },
		{ role: "assistant" as const, content: exchange.answer.slice(0, chars) },
	]);
}

/** One line saying what went with the question ("Kyoto Trip and 4 linked notes"). */
export function describeContext(context: QuestionContext): string {
	const parts: string[] = [];
	if (context.selection?.trim()) parts.push("the selection");
	if (context.activeNote) parts.push(noteName(context.activeNote.path));
	const count = context.neighbourhood.notes.length;
	if (count > 0) parts.push(`${count} linked ${count === 1 ? "note" : "notes"}`);
	if (parts.length === 0) return "No note open: the whole vault is searched.";
	const last = parts.pop() ?? "";
	return `Context: ${parts.length > 0 ? `${parts.join(", ")} and ${last}` : last}`;
}

/** The notes that went with the question, for the expanded context line. */
export function contextNotes(context: QuestionContext): string[] {
	const notes: string[] = [];
	if (context.activeNote) notes.push(`${context.activeNote.path} (open note)`);
	for (const neighbour of context.neighbourhood.notes) {
		const how = neighbour.relation === "link" ? "linked from it" : "links to it";
		notes.push(`${neighbour.path} (${how}${neighbour.depth > 1 ? `, ${neighbour.depth} links away` : ""})`);
	}
	if (context.neighbourhood.leftOut > 0) {
		notes.push(`${context.neighbourhood.leftOut} more linked notes left out (context budget)`);
	}
	return notes;
}

/** "Projects/Kyoto Trip.md" -> "Kyoto Trip" */
export function noteName(path: string): string {
	const name = path.split("/").pop() ?? path;
	return name.replace(/\.md$/i, "");
}
