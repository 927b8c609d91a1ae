/**
 * Conversations that last: what the pane keeps of each (its exchanges, checked answers with
 * their citations), and reading them back from the plugin's data whatever an older version or a
 * hand edit left there. They live in the plugin's data (data.json), never in the sidecar: the
 * API stays stateless, each question carries its history. No `obsidian` import.
 */
import { MAX_SELECTION_CHARS } from "./context";
import { asRecord } from "./records";

/** One question and its checked answer, as the pane shows it again. */
export interface StoredExchange {
	question: string;
	/** `done.answer`: markdown with [[citations]] and the sidecar's Sources list. */
	answer: string;
	/** The selection the question was about, if any. */
	selection: string | null;
	/** The note links resolve from (the active note when it was asked). */
	sourcePath: string;
	/** "extractive · 2 steps", for the footer. */
	footer: string;
	/** Epoch milliseconds. */
	at: number;
}

export interface Conversation {
	id: string;
	title: string;
	created: number;
	updated: number;
	exchanges: StoredExchange[];
}

/** Kept at most; the oldest (by last use) go first. */
export const MAX_CONVERSATIONS = 200;
const TITLE_CHARS = 60;

export function newConversation(id: string, now: number): Conversation {
	return { id, title: "", created: now, updated: now, exchanges: [] };
}

/** A title from the first question: its first line, clipped at a word. */
export function titleFrom(question: string): string {
	const line = question.trim().split("\n")[0]?.replace(/\s+/g, " ") ?? "";
	if (line.length <= TITLE_CHARS) return line;
	const cut = line.slice(0, TITLE_CHARS - 1);
	const space = cut.lastIndexOf(" ");
	return `${space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

/** What the history list calls a conversation. */
export function displayTitle(conversation: Conversation): string {
	return conversation.title || titleFrom(conversation.exchanges[0]?.question ?? "") || "New conversation";
}

/** `conversation` with one more exchange (titled by its first question). */
export function withExchange(conversation: Conversation, exchange: StoredExchange): Conversation {
	// A selection is sent clipped (`buildAskRequest`): kept whole, a pasted book would be written
	// into data.json, in the synced vault, after every answer.
	const selection = exchange.selection?.slice(0, MAX_SELECTION_CHARS) ?? null;
	return {
		...conversation,
		title: conversation.title || titleFrom(exchange.question),
		updated: exchange.at,
		exchanges: [...conversation.exchanges, { ...exchange, selection }],
	};
}

/**
 * The list with `conversation` put in (replacing the one with its id), most recently used
 * first, conversations without exchanges left out, at most MAX_CONVERSATIONS.
 */
export function upsert(list: readonly Conversation[], conversation: Conversation): Conversation[] {
	const others = list.filter((c) => c.id !== conversation.id);
	return sortByUse([conversation, ...others].filter((c) => c.exchanges.length > 0)).slice(0, MAX_CONVERSATIONS);
}

export function rename(list: readonly Conversation[], id: string, title: string): Conversation[] {
	return list.map((c) => (c.id === id ? { ...c, title: title.replace(/\s+/g, " ").trim() } : c));
}

export function remove(list: readonly Conversation[], id: string): Conversation[] {
	return list.filter((c) => c.id !== id);
}

function sortByUse(list: Conversation[]): Conversation[] {
	return [...list].sort((a, b) => b.updated - a.updated || (a.id < b.id ? -1 : 1));
}

/** Conversations from whatever `loadData()` held under `conversations`; bad entries dropped. */
export function normaliseConversations(raw: unknown): Conversation[] {
	if (!Array.isArray(raw)) return [];
	const found: Conversation[] = [];
	for (const item of raw) {
		const record = asRecord(item);
		if (!record || typeof record.id !== "string" || !Array.isArray(record.exchanges)) continue;
		const exchanges = record.exchanges.map(normaliseExchange).filter((e): e is StoredExchange => e !== null);
		if (exchanges.length === 0) continue;
		found.push({
			id: record.id,
			title: typeof record.title === "string" ? record.title : "",
			created: finite(record.created, exchanges[0]?.at ?? 0),
			updated: finite(record.updated, exchanges.at(-1)?.at ?? 0),
			exchanges,
		});
	}
	return sortByUse(found).slice(0, MAX_CONVERSATIONS);
}

function normaliseExchange(raw: unknown): StoredExchange | null {
	const record = asRecord(raw);
	if (!record || typeof record.question !== "string" || typeof record.answer !== "string") return null;
	return {
		question: record.question,
		answer: record.answer,
		selection: typeof record.selection === "string" ? record.selection : null,
		sourcePath: typeof record.sourcePath === "string" ? record.sourcePath : "",
		footer: typeof record.footer === "string" ? record.footer : "",
		at: finite(record.at, 0),
	};
}

function finite(value: unknown, fallback: number): number {
	return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}
