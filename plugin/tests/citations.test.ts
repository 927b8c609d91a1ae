import { describe, expect, it } from "vitest";
import { linkLabel, linktextOf, splitSources } from "../src/citations";

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
