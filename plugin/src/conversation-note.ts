/**
 * "Save as note": a conversation as a markdown note of the vault. Each question is a heading
 * (so the outline lists them), the selection it was about a collapsed quote, the answer as the
 * sidecar wrote it: its [[citations]] are vault paths, so they resolve from any folder, and its
 * Sources list stays. No `obsidian` import: the plugin writes the text where the user chose.
 */
import { displayTitle, type Conversation } from "./conversations";
import { inert } from "./runnable";

/** Names Windows keeps for devices, with any extension ("CON.md" can't be created there). */
const DEVICE_NAMES = /^(?:con|prn|aux|nul|com\d|lpt\d)$/i;
/** Control characters and bidi controls: no place in a file name. */
const UNPRINTABLE = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
/** A file name's most UTF-8 bytes, the ".md" and a " 99" left room under the 255 file systems allow. */
const NAME_BYTES = 200;

/** The note's text. `now` stamps the frontmatter. */
export function conversationMarkdown(conversation: Conversation, now: Date): string {
	const lines = [
		"---",
		`created: ${localStamp(new Date(conversation.created))}`,
		`saved: ${localStamp(now)}`,
		"tags: [vault-agent]",
		"---",
		`# ${oneLine(displayTitle(conversation))}`,
		"",
	];
	for (const exchange of conversation.exchanges) {
		const [first = "", ...rest] = exchange.question.trim().split("\n");
		lines.push(`## ${oneLine(first)}`, "");
		if (rest.some((line) => line.trim())) lines.push(...rest.map((line) => `> ${line}`), "");
		if (exchange.selection?.trim()) {
			lines.push("> [!quote]- Selection", ...exchange.selection.trim().split("\n").map((line) => `> ${line}`), "");
		}
		lines.push(exchange.answer.trim(), "");
	}
	// A new note: Templater would run its <% %> commands, Dataview its inline queries.
	return inert(`${lines.join("\n").trimEnd()}\n`);
}

/** A file name for the note: the title without the characters a vault path can't hold. */
export function noteFileName(conversation: Conversation): string {
	const cleaned = oneLine(displayTitle(conversation).replace(UNPRINTABLE, " "))
		.replace(/[\\/:*?"<>|#^[\]]+/g, " ")
		.replace(/\s+/g, " ")
		.replace(/^[.\s]+|[.\s]+$/g, "");
	const name = withinBytes(cleaned, NAME_BYTES).replace(/[.\s]+$/, "");
	if (!name) return "Conversation";
	return DEVICE_NAMES.test(name) ? `${name} conversation` : name;
}

/** The longest start of `text` of at most `bytes` UTF-8 bytes, cut between characters. */
function withinBytes(text: string, bytes: number): string {
	const encoder = new TextEncoder();
	let kept = "";
	let size = 0;
	for (const character of text) {
		size += encoder.encode(character).length;
		if (size > bytes) break;
		kept += character;
	}
	return kept;
}

/**
 * `folder/name.md`, or `folder/name 2.md`... when taken. `folder` "" or "/" is the vault root.
 */
export function uniqueNotePath(folder: string, name: string, exists: (path: string) => boolean): string {
	const base = folder.replace(/^\/+|\/+$/g, "");
	const prefix = base ? `${base}/` : "";
	for (let n = 1; ; n++) {
		const path = `${prefix}${name}${n === 1 ? "" : ` ${n}`}.md`;
		if (!exists(path)) return path;
	}
}

function oneLine(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}

function localStamp(date: Date): string {
	const pad = (n: number) => String(n).padStart(2, "0");
	return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
