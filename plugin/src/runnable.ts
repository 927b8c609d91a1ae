/**
 * Text in an answer that Obsidian or another plugin would run rather than show, made inert before
 * the pane renders it and before it is written into the vault (Save as note, Insert). The same
 * rules as the sidecar's (agent/runnable.py, which explains them); a streamed answer is raw model
 * text, and a DOM check after the render comes too late for what ran during it.
 *
 * - A fence keeps its language only when it is one the sidecar allows (the contract's
 *   `CodeLanguage`): Obsidian hands a `mermaid` block to a diagram, Dataview runs `dataviewjs`.
 * - Templater's `<%` and Dataview's `=` / `$=` opening code (a span, a block, a raw `<code>`) get a
 *   zero-width space, which no reader sees and JavaScript's `trim()` keeps.
 *
 * The rules work on lines and characters, not on a parse, so a real fence or command is never
 * missed. No `obsidian` import.
 */
import { CodeLanguageValues } from "./generated/contract";

const CODE_LANGUAGES: ReadonlySet<string> = new Set(CodeLanguageValues);
const ZERO_WIDTH_SPACE = "\u200b";

/** What may open a line before a fence or a code line: quote and list markers, a footnote's label. */
const LEAD = String.raw`(?:[ \t]*(?:>|[-*+][ \t]|\d{1,9}[.)][ \t]|\[\^[^\]\s]+\]:))*`;
/** A line opening a fence: its lead, the fence, its info string. */
const FENCE_LINE = new RegExp(String.raw`^(${LEAD}[ \t]*)(\`{3,}|~{3,})([^\n]*)$`, "gm");
const TEMPLATER = /<(?=%)/g;
/**
 * Dataview evaluates a code element whose text, trimmed (`\s`: JavaScript's trim), starts with "="
 * or "$=": a code span (a backtick run tried from its start only: from each of 100,000 backticks
 * took minutes), a raw <code>, or a code block's first line, which may be any line (a line of "="
 * alone underlines a heading).
 */
const DATAVIEW_CODE = /((?<!`)`+\s*|<code>\s*)(?=\$?=)/gi;
/** Within one line: each line is tried (and a run of blank lines is not read from each of them). */
const DATAVIEW_LINE = new RegExp(String.raw`^(${LEAD}[^\S\r\n]*)(?=\$=|=(?!=*[ \t]*$))`, "gm");

/** `markdown` with nothing another plugin runs (see the module comment). */
export function inert(markdown: string): string {
	return plainFences(markdown)
		.replace(TEMPLATER, `<${ZERO_WIDTH_SPACE}`)
		.replace(DATAVIEW_CODE, `$1${ZERO_WIDTH_SPACE}`)
		.replace(DATAVIEW_LINE, `$1${ZERO_WIDTH_SPACE}`);
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
