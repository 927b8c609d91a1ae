import { describe, expect, it } from "vitest";
import {
	isRemoteUrl,
	linktextOf,
	neutraliseRemoteMedia,
	linkLabel,
	splitSources,
	sweepRemoteMedia,
} from "../src/citations";

describe("neutraliseRemoteMedia", () => {
	it("turns remote markdown images into text, whatever the URL's form", () => {
		for (const image of [
			"![x](https://evil.example/p.png?q=secret)",
			'![x](https://evil.example/p.png "title")',
			"![x](<https://evil.example/a b.png>)",
			"![x](//evil.example/p.png)",
			"![x [nested]](http://evil.example/p_(1).png)",
			"![x](HTTPS://EVIL.EXAMPLE/p.png)",
		]) {
			const { markdown, removed } = neutraliseRemoteMedia(`See ${image} here.`);
			expect(markdown, image).not.toMatch(/!\[/);
			expect(markdown, image).toContain("remote image not loaded");
			expect(removed.length, image).toBe(1);
		}
	});

	it("keeps local images and wikilink embeds of notes", () => {
		const text = "![chart](attachments/chart.png) and ![[Garden Plan.png]] and ![[Recipes/Miso Soup]]";
		expect(neutraliseRemoteMedia(text)).toEqual({ markdown: text, removed: [] });
	});

	it("neutralises reference-style images whose definition is remote", () => {
		const text = "A ![pic][tracker] and ![tracker] here.\n\n[tracker]: https://evil.example/t.gif";
		const { markdown, removed } = neutraliseRemoteMedia(text);
		expect(markdown).not.toMatch(/!\[/);
		expect(removed).toHaveLength(2);
	});

	it("shows raw HTML as text, so <img> and styled tags load nothing", () => {
		const text = 'Hi <img src="https://evil.example/x.png"> and <span style="background:url(https://e.example)">x</span>';
		const { markdown, removed } = neutraliseRemoteMedia(text);
		expect(markdown).not.toMatch(/<[a-z]/i);
		expect(markdown).toContain('&lt;img src="https://evil.example/x.png">');
		expect(removed).toHaveLength(3);
	});

	it("keeps autolinks and wikilinks", () => {
		const text = "Read <https://example.org/page> and [[Recipes/Miso Soup#Method]] and [[paper.pdf#page=3]].";
		expect(neutraliseRemoteMedia(text).markdown).toBe(text);
	});

	it("leaves code blocks and code spans as they are", () => {
		const text = [
			"Use `![x](https://example.org/a.png)` inline, and `` <img> `` too.",
			"```html",
			'<img src="https://example.org/b.png">',
			"![y](https://example.org/c.png)",
			"```",
			"But ![z](https://evil.example/d.png) goes.",
		].join("\n");
		const { markdown, removed } = neutraliseRemoteMedia(text);
		expect(markdown).toContain("`![x](https://example.org/a.png)`");
		expect(markdown).toContain("`` <img> ``");
		expect(markdown).toContain('<img src="https://example.org/b.png">\n![y](https://example.org/c.png)\n```');
		expect(markdown).toContain("But *(remote image not loaded: z)* goes.");
		expect(removed).toEqual(["https://evil.example/d.png"]);
	});
});

describe("isRemoteUrl", () => {
	it("is true for URLs that reach a server, false for vault paths and data", () => {
		expect(isRemoteUrl("https://a.example/x")).toBe(true);
		expect(isRemoteUrl("  //a.example/x")).toBe(true);
		expect(isRemoteUrl("ftp://a.example/x")).toBe(true);
		expect(isRemoteUrl("attachments/x.png")).toBe(false);
		expect(isRemoteUrl("data:image/png;base64,AAAA")).toBe(false);
		expect(isRemoteUrl("app://local/x.png")).toBe(false);
	});
});

describe("sweepRemoteMedia", () => {
	it("removes rendered elements that would load remote URLs, keeps local ones", () => {
		const root = document.createElement("div");
		root.createEl("img", { attr: { src: "https://evil.example/a.png", alt: "a" } });
		root.createEl("img", { attr: { src: "app://local/vault/b.png" } });
		root.createEl("iframe", { attr: { src: "https://evil.example/frame" } });
		root.createEl("source", { attr: { srcset: "local.png 1x, https://evil.example/c.png 2x" } });
		root.createEl("p", { text: "x", attr: { style: "background-image: url(https://evil.example/d.png)" } });
		const removed = sweepRemoteMedia(root);
		expect(removed).toHaveLength(4);
		expect(root.querySelectorAll("img")).toHaveLength(1);
		expect(root.querySelector("iframe")).toBeNull();
		expect(root.querySelector("p")?.getAttribute("style")).toBeNull();
		expect(root.textContent).toContain("remote image not loaded: a");
	});
});

describe("links", () => {
	it("reads the link text, subpath included, from a rendered internal link or its children", () => {
		const root = document.createElement("div");
		const link = root.createEl("a", { cls: "internal-link", href: "paper.pdf#page=3", attr: { "data-href": "paper.pdf#page=3" } });
		const inner = link.createSpan({ text: "paper" });
		const external = root.createEl("a", { cls: "external-link", href: "https://example.org" });
		expect(linktextOf(inner)).toBe("paper.pdf#page=3");
		expect(linktextOf(external)).toBeNull();
	});

	it("labels a link by the note's name and its section, and a PDF link by its page", () => {
		expect(linkLabel("Recipes/Miso Soup#Method")).toBe("Miso Soup › Method");
		expect(linkLabel("Daily/2026-11-12")).toBe("2026-11-12");
		expect(linkLabel("Miso Soup#Miso Soup")).toBe("Miso Soup");
		expect(linkLabel("papers/baking.pdf#page=3")).toBe("baking.pdf › Page 3");
		expect(linkLabel("Notes/a.md#Setup#Linux")).toBe("a › Linux");
	});
});

describe("splitSources", () => {
	it("splits off a closing Sources list", () => {
		const answer = "Fed it on [[Daily/2026-11-12]].\n\nSources:\n- [[Daily/2026-11-12]]\n- [[Recipes/Sourdough Starter#Feeding]]\n";
		expect(splitSources(answer)).toEqual({
			body: "Fed it on [[Daily/2026-11-12]].",
			sources: "- [[Daily/2026-11-12]]\n- [[Recipes/Sourdough Starter#Feeding]]",
		});
	});

	it("keeps a Sources line followed by prose, and answers without one", () => {
		const prose = "Sources:\nMostly my diary.";
		expect(splitSources(prose).body).toBe(prose);
		expect(splitSources("Just text.").sources).toBe("");
	});
});
