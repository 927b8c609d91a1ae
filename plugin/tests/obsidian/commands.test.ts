import { describe, expect, it } from "vitest";
import { COMMAND_IDS } from "../../src/obsidian/commands";
import { VIEW_TYPE_ASK } from "../../src/obsidian/view";
import { Notice } from "../../stub/obsidian";
import { command, done, loadPlugin } from "./helpers";

describe("commands", () => {
	it("registers the five commands, in sentence case, without default hotkeys", async () => {
		const { app } = await loadPlugin();
		const registered = Object.values(app.commands.commands);
		expect(registered.map((c) => [c.id, c.name])).toEqual([
			["ask-vault", "Ask vault"],
			["ask-about-selection", "Ask about selection"],
			["ask-about-current-note", "Ask about current note"],
			["reindex-vault", "Re-index vault"],
			["open-related-notes", "Open related notes"],
		]);
		expect(registered.map((c) => c.id)).toEqual([...COMMAND_IDS]);
		for (const c of registered) expect(c.hotkeys, c.id).toBeUndefined();
		expect(typeof command(app, "ask-about-selection").editorCallback).toBe("function");
	});

	it("Ask vault opens one pane in the right sidebar and focuses the question box", async () => {
		const { app } = await loadPlugin();
		await command(app, "ask-vault").callback?.();
		await command(app, "ask-vault").callback?.();
		await new Promise((resolve) => setTimeout(resolve, 0));
		expect(app.workspace.getLeavesOfType(VIEW_TYPE_ASK)).toHaveLength(1);
		expect(app.sidebarEl.querySelector(".vault-agent-view")).not.toBeNull();
		expect(document.activeElement).toBe(app.sidebarEl.querySelector("textarea"));
	});

	it("Ask about selection makes the selection the subject; Enter asks about it", async () => {
		const { app, client, view } = await loadPlugin([done("It says to feed daily.")]);
		command(app, "ask-about-selection").editorCallback?.(
			{ getSelection: () => "Feed the starter   every day." },
			{ file: { path: "Recipes/Sourdough Starter.md" } },
		);
		await new Promise((resolve) => setTimeout(resolve, 0));
		expect(app.sidebarEl.querySelector(".vault-agent-subject")?.textContent).toContain("Selection: “Feed the starter every day.”");
		await view().submit();
		expect(client.requests[0]).toMatchObject({
			question: "What do my notes say about this?",
			selection: "Feed the starter   every day.",
		});
	});

	it("Ask about selection with nothing selected says so", async () => {
		const { app } = await loadPlugin();
		command(app, "ask-about-selection").editorCallback?.({ getSelection: () => "  " }, { file: null });
		expect(Notice.shown).toEqual(["Select some text to ask about first."]);
		expect(app.workspace.getLeavesOfType(VIEW_TYPE_ASK)).toHaveLength(0);
	});

	it("Ask about current note is offered only when a note is open", async () => {
		const { app, client, view } = await loadPlugin([done("A trip.")], { activePath: null });
		expect(command(app, "ask-about-current-note").checkCallback?.(true)).toBe(false);
		app.setActivePath("Projects/Kyoto Trip.md");
		expect(command(app, "ask-about-current-note").checkCallback?.(true)).toBe(true);
		command(app, "ask-about-current-note").checkCallback?.(false);
		await new Promise((resolve) => setTimeout(resolve, 0));
		expect(app.sidebarEl.querySelector(".vault-agent-subject")?.textContent).toContain("About: Kyoto Trip");
		await view().submit();
		expect(client.requests[0]?.active_note?.path).toBe("Projects/Kyoto Trip.md");
	});

	it("Re-index vault asks the sidecar to sync and says so", async () => {
		const { app, client } = await loadPlugin();
		await command(app, "reindex-vault").callback?.();
		expect(client.syncs).toBe(1);
		expect(Notice.shown[0]).toMatch(/^Re-indexing the vault/);
	});

	it("leaves the pane in place on unload (Obsidian restores it) and adds a status bar item", async () => {
		const { app, plugin } = await loadPlugin();
		await plugin.openAskView(null);
		expect(app.statusBarEl.querySelector(".vault-agent-statusbar")).not.toBeNull();
		plugin.unload();
		expect(app.workspace.getLeavesOfType(VIEW_TYPE_ASK)).toHaveLength(1);
	});
});
