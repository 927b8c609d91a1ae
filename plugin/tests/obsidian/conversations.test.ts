// Conversations in the pane: kept in the plugin's data across a reload, listed, reopened and
// continued, renamed, deleted, saved as a note; per-answer actions; Esc and Up.
import { describe, expect, it } from "vitest";
import { Notice } from "../../stub/obsidian";
import { askThenSave, click, done, loadPlugin, tick } from "./helpers";

const ANSWER = "Fed on [[Daily/2026-11-12]].\n\nSources:\n- [[Daily/2026-11-12]]";

function key(el: Element, name: string) {
	el.dispatchEvent(new KeyboardEvent("keydown", { key: name, bubbles: true, cancelable: true }));
}

describe("conversations", () => {
	it("survive a reload of the plugin, and the pane reopens the latest", async () => {
		const first = await loadPlugin([done(ANSWER)]);
		await first.plugin.openAskView(null);
		await first.view().ask("When did I last feed the starter?");
		const saved = first.app.pluginData["vault-agent"] as { conversations: unknown[]; token: string };
		expect(saved.conversations).toHaveLength(1);
		first.plugin.unload();

		const again = await loadPlugin([done("Twice a day.")], { pluginData: { "vault-agent": saved } });
		await again.plugin.openAskView(null);
		const pane = again.app.sidebarEl;
		expect(pane.querySelector(".vault-agent-question-text")?.textContent).toBe("When did I last feed the starter?");
		expect(pane.querySelector(".vault-agent-answer a.internal-link")?.getAttribute("data-href")).toBe("Daily/2026-11-12");
		await again.view().ask("How often?"); // continuing it sends it as history
		expect(again.client.requests[0]?.history).toEqual([
			{ role: "user", content: "When did I last feed the starter?" },
			{ role: "assistant", content: ANSWER },
		]);
		expect(again.plugin.conversations).toHaveLength(1);
		expect(again.plugin.conversations[0]?.exchanges).toHaveLength(2);
	});

	it("are listed; New conversation keeps the old one, which opens, renames and deletes", async () => {
		const loaded = await loadPlugin([done("One.")]);
		await loaded.plugin.openAskView(null);
		const pane = loaded.app.sidebarEl;
		await loaded.view().ask("First question?");
		click(pane.querySelector("button.vault-agent-new"));
		loaded.client.script = [done("Two.")];
		await loaded.view().ask("Second question?");
		click(pane.querySelector("button.vault-agent-history-toggle"));
		const names = () => [...pane.querySelectorAll(".vault-agent-history-name")].map((el) => el.textContent);
		expect(names()).toEqual(["Second question?", "First question?"]);

		click(pane.querySelectorAll(".vault-agent-history-name")[1]!);
		await tick();
		expect([...pane.querySelectorAll(".vault-agent-question-text")].map((el) => el.textContent)).toEqual(["First question?"]);

		click(pane.querySelector("button.vault-agent-history-toggle"));
		click(pane.querySelectorAll("button.vault-agent-history-rename")[1]!);
		const input = pane.querySelector("input.vault-agent-history-input") as HTMLInputElement;
		input.value = "Starter feeding";
		key(input, "Enter");
		await tick();
		expect(names()).toEqual(["Second question?", "Starter feeding"]);
		expect(loaded.plugin.conversations.map((c) => c.title)).toEqual(["Second question?", "Starter feeding"]);

		click(pane.querySelectorAll("button.vault-agent-history-delete")[0]!);
		await tick();
		expect(names()).toEqual(["Starter feeding"]);
		expect((loaded.app.pluginData["vault-agent"] as { conversations: unknown[] }).conversations).toHaveLength(1);
	});

	it("saves as a note in the chosen folder, and opens it", async () => {
		const loaded = await loadPlugin([done(ANSWER)]);
		await askThenSave(loaded, "When did I last feed the starter?", "Chats");
		const note = loaded.app.files.get("Chats/When did I last feed the starter.md");
		expect(note?.content).toContain("## When did I last feed the starter?\n\nFed on [[Daily/2026-11-12]].");
		expect(loaded.app.openedFiles).toEqual(["Chats/When did I last feed the starter.md"]);
	});
});

describe("an answer's actions", () => {
	it("copy the markdown, insert it at the editor's cursor, and ask again", async () => {
		const loaded = await loadPlugin([done(ANSWER)]);
		const copied: string[] = [];
		Object.defineProperty(navigator, "clipboard", { value: { writeText: async (text: string) => void copied.push(text) }, configurable: true });
		loaded.app.openInEditor("Daily/2026-11-12.md", "");
		await loaded.plugin.openAskView(null);
		await loaded.view().ask("When?");
		const pane = loaded.app.sidebarEl;
		for (const name of ["copy", "insert", "retry"]) {
			const button = pane.querySelector(`.vault-agent-answer-actions button.vault-agent-${name}`);
			expect(button?.getAttribute("aria-label"), name).toBeTruthy();
			expect(button?.querySelector("svg"), name).not.toBeNull();
		}
		click(pane.querySelector("button.vault-agent-copy"));
		click(pane.querySelector("button.vault-agent-insert"));
		await tick();
		expect(copied).toEqual([ANSWER]);
		expect(loaded.app.inserted).toEqual([{ path: "Daily/2026-11-12.md", text: ANSWER }]);

		loaded.client.script = [done("Fresh answer.")];
		click(pane.querySelector("button.vault-agent-retry"));
		for (let i = 0; i < 5; i++) await tick();
		expect(loaded.client.requests.map((r) => r.question)).toEqual(["When?", "When?"]);
		expect(loaded.client.requests[1]?.history).toBeUndefined(); // the retried answer left the history
		expect(pane.querySelectorAll(".vault-agent-turn")).toHaveLength(1);
		expect(pane.querySelector(".vault-agent-answer")?.textContent).toBe("Fresh answer.");
	});

	it("insert says so when no note is open", async () => {
		const loaded = await loadPlugin([done("x")]);
		await loaded.plugin.openAskView(null);
		await loaded.view().ask("q");
		click(loaded.app.sidebarEl.querySelector("button.vault-agent-insert"));
		expect(Notice.shown.at(-1)).toBe("Open a note to insert the answer into.");
	});
});

describe("the keyboard", () => {
	it("Esc stops a running answer; Up in the empty box recalls the last question", async () => {
		const loaded = await loadPlugin([
			{ event: "delta", text: "Partial ", turn: 1 },
			{ event: "delta", text: "answer", turn: 1 },
			done("never shown"),
		]);
		await loaded.plugin.openAskView(null);
		const pane = loaded.app.sidebarEl;
		const input = pane.querySelector("textarea") as HTMLTextAreaElement;
		loaded.client.between = (event) => {
			if (event.event === "delta") key(input, "Escape");
		};
		await loaded.view().ask("Tell me everything");
		expect(pane.querySelector(".vault-agent-stopped")).not.toBeNull();
		expect(loaded.plugin.conversations).toEqual([]); // a stopped answer is not kept
		key(input, "ArrowUp");
		expect(input.value).toBe("Tell me everything");
		input.value = "typed";
		key(input, "ArrowUp");
		expect(input.value).toBe("typed");
	});
});
