/**
 * Code blocks that render as code, in the pane too: Obsidian hands a fenced block to whatever
 * registered its language, while rendering (a `mermaid` diagram loads the images its labels name,
 * `dataviewjs` runs its block as JavaScript). A streamed answer is raw model text, and a DOM
 * check after the render comes too late for a block that ran. So before any render, a fence
 * keeps its language only when it is one the sidecar allows (the contract's `CodeLanguage`, from
 * agent/code_fences.py); any other fence shows its lines as plain code.
 *
 * The same line rule as the sidecar's: any line opening like a fence (after quote and list
 * markers) is treated as one, so a real fence is never missed. No `obsidian` import.
 */
import { CodeLanguageValues } from "./generated/contract";

const CODE_LANGUAGES: ReadonlySet<string> = new Set(CodeLanguageValues);

/** A line opening a fence: quote and list markers, the fence, its info string. */
const FENCE_LINE = /^((?:[ \t]*(?:>|[-*+][ \t]|\d{1,9}[.)][ \t]))*[ \t]*)(`{3,}|~{3,})([^\n]*)$/gm;

/** `markdown` with the info string of every fence not naming an allowed language removed. */
export function plainFences(markdown: string): string {
	return markdown.replace(FENCE_LINE, (line: string, lead: string, fence: string, info: string) => {
		if (fence.startsWith("`") && info.includes("`")) return line; // inline code, not a fence
		const language = (info.trim().split(/[\s{]/, 1)[0] ?? "").toLowerCase();
		if (language === "" || CODE_LANGUAGES.has(language)) return line;
		return `${lead}${fence}`;
	});
}
