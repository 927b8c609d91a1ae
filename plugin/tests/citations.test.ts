import { describe, expect, it } from "vitest";
import { linktextOf, noteLink, sourceLabel, splitSources } from "../src/citations";

describe("links", () => {
	it("reads the link text, subpath included, from a rendered internal link or its children", () => {
		const root = document.createElement("div");
		const link = root.createEl("a", { cls: "internal-link", href: "paper.pdf#page=3", attr: { "data-href": "paper.pdf#page=3" } });
		const inner = link.createSpan({ text: "paper" });
		const external = root.createEl("a", { cls: "external-link", href: "https://example.org" });
		expect(linktextOf(inner)).toBe("paper.pdf#page=3");
		expect(linktextOf(external)).toBeNull();
	});

	it("writes source links as the sidecar does (note_link)", () => {
		expect(noteLink({ file: "Recipes/Miso Soup.md", heading: "" })).toBe("Recipes/Miso Soup");
		expect(noteLink({ file: "Recipes/Miso Soup.md", heading: "Miso Soup > Method" })).toBe("Recipes/Miso Soup#Method");
		expect(noteLink({ file: "a.md", heading: "Q: what [now]?" })).toBe("a#Q what now ?");
		expect(noteLink({ file: "papers/paper.pdf", heading: "" })).toBe("papers/paper.pdf");
	});

	it("links a PDF source to its page, the way Obsidian opens a PDF at a page", () => {
		expect(noteLink({ file: "papers/paper.pdf", heading: "Page 3" })).toBe("papers/paper.pdf#page=3");
		expect(noteLink({ file: "papers/paper.pdf", heading: "page=12" })).toBe("papers/paper.pdf#page=12");
		// Only PDFs: a note may well have a section called "Page 3".
		expect(noteLink({ file: "Book notes.md", heading: "Page 3" })).toBe("Book notes#Page 3");
	});

	it("labels a source by title and its section", () => {
		expect(sourceLabel({ file: "Recipes/Miso Soup.md", title: "Miso Soup", heading: "Miso Soup > Method" })).toBe(
			"Miso Soup › Method",
		);
		expect(sourceLabel({ file: "Recipes/Miso Soup.md", title: "Miso Soup", heading: "Miso Soup" })).toBe("Miso Soup");
	});
});

describe("splitSources", () => {
	it("splits off a closing Sources list", () => {
		const answer = "Fed it on [[Daily/2026-11-12]].\n\nSources:\n- [[Daily/2026-11-12]]\n- [[Recipes/Sourdough Starter#Feeding]]\n";
		expect(splitSources(answer)).toEqual({
			body: "Fed it on [[Daily/2026-11-12]].",
			sources: "Sources:\n- [[Daily/2026-11-12]]\n- [[Recipes/Sourdough Starter#Feeding]]",
		});
	});

	it("keeps a Sources line followed by prose, and answers without one", () => {
		const prose = "Sources:\nMostly my diary.";
		expect(splitSources(prose).body).toBe(prose);
		expect(splitSources("Just text.").sources).toBe("");
	});
});
