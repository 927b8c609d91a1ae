// The related notes view against a scripted client: what it lists and marks, following the
// active note, opening, hovering and dragging a note.
import { describe, expect, it } from "vitest";
import { SidecarError } from "../../src/client";
import { RelatedView, VIEW_TYPE_RELATED } from "../../src/obsidian/related-view";
import { loadPlugin } from "./helpers";

const NOTES = [
	{ file: "People/Tomás Ferreira.md", title: "Tomás Ferreira", heading: "", score: 0.6, snippet: "Friend in Kyoto.", linked: "link" as const },
	{ file: "Daily/2026-11-12.md", title: "2026-11-12", heading: "", score: 0.4, snippet: "Fed the starter.", linked: null },
];

async function openRelated() {
	const loaded = await loadPlugin();
	loaded.client.relatedAnswer = { file: "", notes: NOTES };
	await loaded.plugin.openRelatedView();
	const view = loaded.app.workspace.getLeavesOfType(VIEW_TYPE_RELATED)[0]?.view;
	if (!(view instanceof RelatedView)) throw new Error("no related view");
	const root = view.containerEl;
	return { ...loaded, view, root };
}

describe("the related notes view", () => {
	it("lists the notes for the active note, marking linked ones", async () => {
		const { root, client } = await openRelated();
		expect(client.relatedAsked.at(-1)).toBe("Projects/Kyoto Trip.md");
		expect(root.querySelector(".vault-agent-related-header")?.textContent).toBe("Related to Kyoto Trip");
		const items = [...root.querySelectorAll(".vault-agent-related-item")];
		expect(items.map((item) => item.getAttribute("data-file"))).toEqual(["People/Tomás Ferreira.md", "Daily/2026-11-12.md"]);
		expect(items[0]?.querySelector(".vault-agent-related-linked")?.getAttribute("aria-label")).toBe("The note links here");
		expect(items[1]?.querySelector(".vault-agent-related-linked")).toBeNull();
		expect(items.map((item) => item.getAttribute("draggable"))).toEqual(["true", "true"]);
	});

	it("follows the active note, once after a burst of changes", async () => {
		const { app, client } = await openRelated();
		const before = client.relatedAsked.length;
		app.setActivePath("Daily/2026-11-12.md");
		app.setActivePath("People/Tomás Ferreira.md");
		await new Promise((resolve) => setTimeout(resolve, 600));
		expect(client.relatedAsked.slice(before)).toEqual(["People/Tomás Ferreira.md"]);
	});

	it("opens a note on click, previews it on hover, and drags as a link", async () => {
		const { root, app } = await openRelated();
		const item = root.querySelector(".vault-agent-related-item .internal-link")!;
		item.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
		item.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
		expect(app.opened.at(-1)).toEqual({ linktext: "People/Tomás Ferreira.md", sourcePath: "Projects/Kyoto Trip.md", newLeaf: false });
		expect(app.hovers.at(-1)).toEqual({ linktext: "People/Tomás Ferreira.md", sourcePath: "Projects/Kyoto Trip.md", source: VIEW_TYPE_RELATED });
		const data = new Map<string, string>();
		const drag = new Event("dragstart", { bubbles: true }) as DragEvent;
		Object.defineProperty(drag, "dataTransfer", { value: { setData: (type: string, value: string) => data.set(type, value), effectAllowed: "" } });
		item.dispatchEvent(drag);
		expect(data.get("text/plain")).toBe("[[People/Tomás Ferreira]]");
	});

	it("says when the note is not indexed yet", async () => {
		const loaded = await loadPlugin();
		loaded.client.relatedAnswer = new SidecarError("rejected", "no indexed note", 404, "note_not_found");
		await loaded.plugin.openRelatedView();
		expect(loaded.app.sidebarEl.querySelector(".vault-agent-related-list")?.textContent).toMatch(/not indexed yet/);
	});
});
