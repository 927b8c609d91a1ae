// The fences and commands of the shared corpus (tests/data/hostile-markdown.json, which the
// sidecar's tests/test_security_render.py runs too): the pane makes of each what the sidecar does.
import { describe, expect, it } from "vitest";
import corpus from "../../tests/data/hostile-markdown.json";
import { inert, plainFences } from "../src/runnable";

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
