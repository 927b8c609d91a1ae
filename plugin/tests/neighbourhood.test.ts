import { describe, expect, it } from "vitest";
import { invertLinks, neighbourhood, type ResolvedLinks } from "../src/neighbourhood";

// Kyoto links to Tomás (twice) and Ramen; Ramen links to Miso; Journal and Budget link to Kyoto;
// Tomás links back to Kyoto (a cycle); Kyoto embeds a PDF.
const LINKS: ResolvedLinks = {
	"Projects/Kyoto.md": { "People/Tomás.md": 2, "Food/Ramen.md": 1, "Files/map.pdf": 1 },
	"Food/Ramen.md": { "Food/Miso.md": 1 },
	"Daily/Journal.md": { "Projects/Kyoto.md": 1 },
	"Areas/Budget.md": { "Projects/Kyoto.md": 3 },
	"People/Tomás.md": { "Projects/Kyoto.md": 1 },
	"Food/Miso.md": {},
	"Other/Unrelated.md": { "Food/Miso.md": 1 },
};

const unlimited = { budget: 1_000_000, sizeOf: () => 100 };

describe("invertLinks", () => {
	it("maps each target to the notes linking to it, with counts", () => {
		const backlinks = invertLinks(LINKS);
		expect(Object.fromEntries(backlinks.get("Projects/Kyoto.md") ?? [])).toEqual({
			"Daily/Journal.md": 1,
			"Areas/Budget.md": 3,
			"People/Tomás.md": 1,
		});
		expect(backlinks.get("Other/Unrelated.md")).toBeUndefined();
	});
});

describe("neighbourhood", () => {
	it("lists links before backlinks, the more linked first, never the note itself", () => {
		const { notes } = neighbourhood(LINKS, "Projects/Kyoto.md", { depth: 1, ...unlimited });
		expect(notes).toEqual([
			{ path: "People/Tomás.md", relation: "link", depth: 1 },
			{ path: "Food/Ramen.md", relation: "link", depth: 1 },
			{ path: "Areas/Budget.md", relation: "backlink", depth: 1 },
			{ path: "Daily/Journal.md", relation: "backlink", depth: 1 },
		]);
	});

	it("leaves out attachments such as PDFs", () => {
		const { notes } = neighbourhood(LINKS, "Projects/Kyoto.md", { depth: 1, ...unlimited });
		expect(notes.map((n) => n.path)).not.toContain("Files/map.pdf");
	});

	it("goes further at depth 2, each note once, at its nearest depth", () => {
		const { notes } = neighbourhood(LINKS, "Projects/Kyoto.md", { depth: 2, ...unlimited });
		expect(notes.filter((n) => n.depth === 2)).toEqual([{ path: "Food/Miso.md", relation: "link", depth: 2 }]);
		expect(new Set(notes.map((n) => n.path)).size).toBe(notes.length);
		expect(neighbourhood(LINKS, "Projects/Kyoto.md", { depth: 3, ...unlimited }).notes).toContainEqual({
			path: "Other/Unrelated.md",
			relation: "backlink",
			depth: 3,
		});
	});

	it("finds nothing at depth 0 or for a note without links", () => {
		expect(neighbourhood(LINKS, "Projects/Kyoto.md", { depth: 0, ...unlimited }).notes).toEqual([]);
		expect(neighbourhood(LINKS, "Nowhere.md", { depth: 2, ...unlimited }).notes).toEqual([]);
	});

	it("takes notes in order while their size fits the budget, counting what it left out", () => {
		const sizes: Record<string, number> = { "People/Tomás.md": 1_000, "Food/Ramen.md": 900, "Areas/Budget.md": 50 };
		const result = neighbourhood(LINKS, "Projects/Kyoto.md", {
			depth: 1,
			budget: 1_950,
			sizeOf: (path) => sizes[path] ?? 0,
		});
		expect(result.notes.map((n) => n.path)).toEqual(["People/Tomás.md", "Food/Ramen.md", "Areas/Budget.md", "Daily/Journal.md"]);
		const tight = neighbourhood(LINKS, "Projects/Kyoto.md", { depth: 1, budget: 1_500, sizeOf: (path) => sizes[path] ?? 0 });
		expect(tight.notes.map((n) => n.path)).toEqual(["People/Tomás.md"]);
		expect(tight.leftOut).toBe(3);
	});

	it("counts a long note only as much as the sidecar shows of it", () => {
		const result = neighbourhood(LINKS, "Projects/Kyoto.md", {
			depth: 1,
			budget: 5_000,
			sizeOf: () => 1_000_000,
			perNoteChars: 2_500,
		});
		expect(result.notes).toHaveLength(2);
	});

	it("sends at most maxNotes neighbours", () => {
		const star: ResolvedLinks = { "Hub.md": {} };
		for (let i = 0; i < 300; i++) (star["Hub.md"] as Record<string, number>)[`N${String(i).padStart(3, "0")}.md`] = 1;
		const result = neighbourhood(star, "Hub.md", { depth: 1, budget: 10_000_000, sizeOf: () => 10 });
		expect(result.notes).toHaveLength(200);
		expect(result.leftOut).toBe(100);
		expect(result.notes[0]?.path).toBe("N000.md");
	});
});
