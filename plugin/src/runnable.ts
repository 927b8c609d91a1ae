/**
 * Text in an answer that Obsidian or another plugin would run rather than show, made inert before
 * the pane renders it and before it is written into the vault (Save as note, Insert). The same
 * rules as the sidecar's (agent/runnable.py, which explains them); a streamed answer is raw model
 * text, and a DOM check after the render comes too late for what ran during it.
 *
 * - A fence keeps its language only when it is one the sidecar allows (the contract's
 *   `CodeLanguage`): Obsidian hands a `mermaid` block to a diagram, Dataview runs `dataviewjs`.
 * - Templater's `<%` and Dataview's inline `=` / `$=` get a zero-width space, which no reader sees.
 *
 * The rules work on lines and characters, not on a parse, so a real fence or command is never
 * missed. No `obsidian` import.
 */
import { CodeLanguageValues } from "./generated/contract";

const CODE_LANGUAGES: ReadonlySet<string> = new Set(CodeLanguageValues);
const ZERO_WIDTH_SPACE = "\u200b";

/** A line opening a fence: quote and list markers, the fence, its info string. */
const FENCE_LINE = /^((?:[ \t]*(?:>|[-*+][ \t]|\d{1,9}[.)][ \t]))*[ \t]*)(`{3,}|~{3,})([^\n]*)$/gm;
const TEMPLATER = /<(?=%)/g;
/** A backtick run is tried from its start only (from each of 100,000 backticks took minutes). */
const DATAVIEW_INLINE = /(?<!`)(`+[ \t]*)(?=\$?=)/g;

/** `markdown` with nothing another plugin runs (see the module comment). */
export function inert(markdown: string): string {
	return plainFences(markdown)
		.replace(TEMPLATER, `<${ZERO_WIDTH_SPACE}`)
		.replace(DATAVIEW_INLINE, `$1${ZERO_WIDTH_SPACE}`);
}

/** `markdown` with the info string of every fence not naming an allowed language removed. */
export function plainFences(markdown: string): string {
	return markdown.replace(FENCE_LINE, (line: string, lead: string, fence: string, info: string) => {
		if (fence.startsWith("`") && info.includes("`")) return line; // inline code, not a fence
		const language = (info.trim().split(/[\s{]/, 1)[0] ?? "").toLowerCase();
		if (language === "" || CODE_LANGUAGES.has(language)) return line;
		return `${lead}${fence}`;
	});
}
