/**
 * Conversations in Chromium against the real sidecar: kept across a reload of the plugin,
 * listed, reopened and continued, renamed and deleted; saved as a note whose citations resolve;
 * each answer's actions (copy, insert at the cursor, retry); Esc and Up in the question box.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answered, ask, launchBrowser, openPane, read, screenshot, VAULT } from "./pane";
import { readVault } from "./servers";

let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

/** The vault path a wikilink target resolves to, as Obsidian would (path, else name). */
function resolves(target: string, paths: string[]): string | undefined {
	const bare = target.split("#")[0]!.split("|")[0]!.trim();
	return paths.find((p) => p === bare || p === `${bare}.md`) ?? paths.find((p) => p.split("/").pop() === `${bare}.md`);
}

describe("conversations", () => {
	it("survive a reload of the plugin; the history list opens, continues, renames and deletes them", async () => {
		const page = await openPane(browser);
		await ask(page, "Who is Ruth Adler?");
		await answered(page, 1);
		await page.click("button.vault-agent-new");
		expect(await page.$$(".vault-agent-turn")).toHaveLength(0);
		await ask(page, "What did the garden committee decide?");
		await answered(page, 1);

		await read(page, (h) => h.reload());
		await page.waitForSelector(".vault-agent-view textarea");
		// The latest conversation is back on screen, the other one in the list.
		expect(await page.textContent(".vault-agent-question-text")).toBe("What did the garden committee decide?");
		await page.click("button.vault-agent-history-toggle");
		const names = () => page.$$eval(".vault-agent-history-name", (els) => els.map((el) => el.textContent));
		expect(await names()).toEqual(["What did the garden committee decide?", "Who is Ruth Adler?"]);
		await screenshot(page, "history");

		await page.click(".vault-agent-history-name >> text=Who is Ruth Adler?");
		expect(await page.$$eval(".vault-agent-question-text", (els) => els.map((el) => el.textContent))).toEqual(["Who is Ruth Adler?"]);
		await ask(page, "What does she bake?");
		await answered(page, 2);
		const conversation = await read(page, (h) => (h.plugin as unknown as { conversations: { exchanges: unknown[] }[] }).conversations[0]);
		expect(conversation?.exchanges).toHaveLength(2); // continued, not a new one

		await page.click("button.vault-agent-history-toggle");
		await page.click(".vault-agent-history-item:has-text('Who is Ruth Adler?') button.vault-agent-history-rename");
		await page.fill("input.vault-agent-history-input", "Ruth and her bread");
		await page.press("input.vault-agent-history-input", "Enter");
		expect(await names()).toEqual(["Ruth and her bread", "What did the garden committee decide?"]);
		await page.click(".vault-agent-history-item:has-text('garden committee') button.vault-agent-history-delete");
		expect(await names()).toEqual(["Ruth and her bread"]);

		await read(page, (h) => h.reload());
		await page.click("button.vault-agent-history-toggle");
		expect(await names()).toEqual(["Ruth and her bread"]);
		await page.close();
	});

	it("saves as a note in the chosen folder whose citations all resolve", async () => {
		const page = await openPane(browser, { settings: { notesFolder: "Vault Agent" } });
		await ask(page, "When did I last feed the sourdough starter?");
		await answered(page);
		await page.click("button.vault-agent-save");
		await page.waitForFunction(() => window.harness.app.openedFiles.length > 0);
		const [path] = await read(page, (h) => h.app.openedFiles);
		expect(path).toBe("Vault Agent/When did I last feed the sourdough starter.md");
		const note = await page.evaluate((p) => window.harness.app.files.get(p)?.content ?? "", path!);
		expect(note).toContain("## When did I last feed the sourdough starter?");
		expect(note).toContain("\nSources:\n- [[");
		const targets = [...note.matchAll(/\[\[([^\]]+)\]\]/g)].map((m) => m[1]!);
		expect(targets.length).toBeGreaterThan(2);
		const paths = readVault(VAULT).notes.map((n) => n.path);
		for (const target of targets) expect(resolves(target, paths), target).toBeDefined();
		await page.close();
	});

	it("copies an answer, inserts it at the editor's cursor, and asks again", async () => {
		const page = await openPane(browser);
		await ask(page, "Who is Maya?");
		await answered(page);
		const answer = await read(page, (h) => (h.plugin as unknown as { conversations: { exchanges: { answer: string }[] }[] }).conversations[0]!.exchanges[0]!.answer);
		await page.click(".vault-agent-answer-actions button.vault-agent-copy");
		await page.waitForFunction(() => window.harness.notices.includes("Copied."));
		expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(answer);
		await page.click(".vault-agent-answer-actions button.vault-agent-insert");
		expect(await read(page, (h) => h.app.inserted)).toEqual([{ path: "Recipes/Sourdough Starter.md", text: answer }]);
		await page.click(".vault-agent-answer-actions button.vault-agent-retry");
		await page.waitForFunction(() => document.querySelector(".vault-agent-answer.is-streaming") !== null || document.querySelectorAll(".vault-agent-footer").length === 1);
		await answered(page);
		expect(await page.$$(".vault-agent-turn")).toHaveLength(1);
		expect(await read(page, (h) => (h.plugin as unknown as { conversations: { exchanges: unknown[] }[] }).conversations[0]!.exchanges.length)).toBe(1);
		await page.close();
	});

	it("stops with Esc, leaving a clean partial answer; Up recalls the question", async () => {
		const page = await openPane(browser);
		await ask(page, "What happened at the Tidepool retro?");
		await page.waitForFunction(() => window.harness.streamed.length >= 1);
		await page.keyboard.press("Escape");
		await page.waitForSelector(".vault-agent-stopped");
		const turn = await page.$eval(".vault-agent-turn", (el) => {
			const answer = el.querySelector(".vault-agent-answer")!;
			const stopped = el.querySelector(".vault-agent-stopped")!;
			return {
				text: answer.textContent ?? "",
				streaming: answer.classList.contains("is-streaming"),
				gap: stopped.getBoundingClientRect().top - answer.getBoundingClientRect().bottom,
				status: (el.querySelector(".vault-agent-status") as HTMLElement).style.display,
			};
		});
		expect(turn.text.length).toBeGreaterThan(0);
		expect(turn.text).not.toContain("[["); // rendered, not raw
		expect(turn.streaming).toBe(false);
		expect(turn.status).toBe("none");
		expect(turn.gap).toBeLessThan(24); // no odd gap after Stop
		expect(await page.isVisible("button.vault-agent-ask")).toBe(true);
		await screenshot(page, "stopped");

		expect(await page.inputValue(".vault-agent-view textarea")).toBe("");
		await page.focus(".vault-agent-view textarea");
		await page.keyboard.press("ArrowUp");
		expect(await page.inputValue(".vault-agent-view textarea")).toBe("What happened at the Tidepool retro?");
		await page.close();
	});
});
