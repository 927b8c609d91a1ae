// The allowlist over rendered answers (src/safe-render.ts), on the shared corpus of hostile
// markdown, as if the sidecar's own check had missed everything (it runs the same corpus:
// tests/test_security_render.py). Through the pane: tests/obsidian/turn.test.ts.
import { describe, expect, it } from "vitest";
import { isSafeLink, isVaultResource, sanitiseRendered } from "../src/safe-render";
import { BENIGN, HOSTILE, rendered, violations } from "./hostile-dom";

describe("the shared corpus of hostile markdown", () => {
	it("holds at least sixty forms, which load or link unsafely when rendered as they are", () => {
		expect(HOSTILE.length).toBeGreaterThanOrEqual(60);
		const unsafe = HOSTILE.filter((form) => violations(rendered(form.markdown)).length > 0);
		expect(unsafe.length).toBeGreaterThanOrEqual(100);
	});

	it.each(HOSTILE.map((form) => [form.note, form] as const))("%s: nothing loads once sanitised", (_, form) => {
		const root = rendered(form.markdown);
		const before = violations(root);
		const removed = sanitiseRendered(root);
		expect(violations(root), root.innerHTML).toEqual([]);
		if (before.some((v) => !v.startsWith("<a "))) expect(removed.length).toBeGreaterThan(0);
	});

	it.each(BENIGN.map((form) => [form.note, form] as const))("%s: kept", (_, form) => {
		const root = rendered(form.markdown);
		const html = root.innerHTML;
		expect(sanitiseRendered(root)).toEqual([]);
		expect(root.innerHTML).toBe(html);
		expect([html, html.replaceAll("%20", " "), root.textContent].join("\n")).toContain(form.keeps);
	});
});

describe("URLs as the browser parses them", () => {
	it("takes relative paths and app: URLs as vault resources, and nothing else", () => {
		for (const url of ["attachments/a.png", "a b.png", "#x", "?q", "/abs.png", "app://local/x.png", "APP://x"]) {
			expect(isVaultResource(url), url).toBe(true);
		}
		for (const url of [
			"https:/evil.example/a", "http:evil.example/a", "https:x", "//evil.example/a", "\\\\evil.example\\a",
			"/\\evil.example/a", "\thttps://evil.example", "data:image/png;base64,AA", "blob:https://e/x",
			"javascript:alert(1)", "java\tscript:alert(1)", "file:///etc/passwd", "https:",
		]) {
			expect(isVaultResource(url), url).toBe(false);
		}
	});

	it("lets links lead to web pages and the vault only", () => {
		expect(isSafeLink("https://ok.example/p")).toBe(true);
		expect(isSafeLink("http:ok.example")).toBe(true);
		expect(isSafeLink("Recipes/Miso Soup")).toBe(true);
		for (const url of ["javascript:alert(1)", "JAVASCRIPT:x", "obsidian://open?vault=x", "data:text/html,x", "file:///x"]) {
			expect(isSafeLink(url), url).toBe(false);
		}
	});
});
