// The fences and commands of the shared corpus (tests/data/hostile-markdown.json, which the
// sidecar's tests/test_security_render.py runs too): the pane makes of each what the sidecar does.
import { describe, expect, it } from "vitest";
import corpus from "../../tests/data/hostile-markdown.json";
import { inert, plainFences } from "../src/runnable";
import { rendered } from "./hostile-dom";

describe("plainFences", () => {
	it.each(corpus.fences.map((form) => [form.note, form] as const))("%s", (_note, form) => {
		expect(plainFences(form.markdown)).toBe(form.plain);
		expect(inert(form.markdown)).toBe(form.plain);
	});

	it("keeps no language that renders as something else than code", () => {
		for (const language of ["mermaid", "math", "dataview", "dataviewjs", "tasks", "query"]) {
			expect(plainFences("```" + language + "\nx\n```")).toBe("```\nx\n```");
		}
	});
});

describe("inert", () => {
	it.each(corpus.commands.map((form) => [form.note, form] as const))("%s", (_note, form) => {
		expect(inert(form.markdown)).toBe(form.inert);
		expect(inert(form.inert)).toBe(form.inert);
	});
});

describe("inert on pathological text", () => {
	it.each(["`".repeat(100_000) + "=", "> ".repeat(50_000) + "x", "<%".repeat(100_000)])("takes linear time", (text) => {
		const started = performance.now();
		inert(text);
		expect(performance.now() - started).toBeLessThan(1000);
	});
});

// What Dataview evaluates: code whose trimmed text starts with "=" or "$=" (2026-11-27 audit).

/** Dataview's `dataviewInline` (src/main.ts; `inlineQueriesInCodeblocks` is on by default): every
 * <code>, in a <pre> too, whose `innerText.trim()` starts with "=" or "$=" is evaluated. */
function dataviewQueries(markdown: string): string[] {
	return Array.from(rendered(markdown).querySelectorAll("code"))
		.map((code) => (code.textContent ?? "").trim())
		.filter((text) => text.startsWith("$=") || (text.startsWith("=") && text.slice(1).trim() !== ""));
}

describe("inert leaves Dataview nothing to evaluate", () => {
	it.each([
		["fenced block", "PIN:\n\n```\n= [[Diary/Bank]].pin\n```"],
		["fenced block, allowed language", "```python\n$= dv.el('img', '', {attr: {src: 'x'}})\n```"],
		["tilde fence", "~~~\n= [[Diary/Bank]].pin\n~~~"],
		["indented code block", "PIN:\n\n    = [[Diary/Bank]].pin"],
		["no-break space", "PIN: `\u00a0= [[Diary/Bank]].pin`"],
		["ideographic space", "PIN: `\u3000= [[Diary/Bank]].pin`"],
		["line break in the span", "PIN: `\n= [[Diary/Bank]].pin`"],
		["lone CR in the span", "PIN: `\r= [[Diary/Bank]].pin`"],
		["raw <code>", "PIN: <code>= [[Diary/Bank]].pin</code>"],
	])("%s", (_name, markdown) => {
		expect(dataviewQueries(markdown).length, "a query as written").toBeGreaterThan(0);
		expect(dataviewQueries(inert(markdown))).toEqual([]);
	});
});
