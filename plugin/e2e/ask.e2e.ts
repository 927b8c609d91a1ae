/**
 * Asking, in Chromium, against the real sidecar: the answer renders as markdown while it
 * streams, its citations open notes, the context line lists what was sent, a hostile answer
 * loads nothing, errors carry the actions that fix them, and the pane is built from Obsidian's
 * icon buttons.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ACTIVE, answered, ask, launchBrowser, openPane, read, screenshot } from "./pane";

const QUESTION = "When did I last feed the sourdough starter?";
let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

describe("asking in the pane", () => {
	it("renders the answer as markdown while it streams, then shows citations that open the cited note", async () => {
		const page = await openPane(browser);
		await ask(page, QUESTION);
		await answered(page);

		const streamed = await read(page, (h) => h.streamed);
		expect(streamed.length).toBeGreaterThanOrEqual(2); // it grew while streaming...
		for (const text of streamed) {
			expect(text).not.toContain("[["); // ...rendered: no raw wikilinks, no raw bold
			expect(text).not.toContain("**");
		}

		// A long answer is shown from its question down.
		const [question, thread] = await Promise.all([page.$(".vault-agent-question"), page.$(".vault-agent-thread")]);
		const [questionBox, threadBox] = await Promise.all([question!.boundingBox(), thread!.boundingBox()]);
		expect(questionBox!.y).toBeGreaterThanOrEqual(threadBox!.y);

		const links = await page.$$eval(".vault-agent-answer a.internal-link", (as) => as.map((a) => a.getAttribute("data-href")));
		// The answer comes first: the day the starter was last fed, cited to that day's log.
		expect(links[0]).toBe("Daily/2026-11-11#Log");
		const section = links.find((link) => link?.startsWith("Recipes/Sourdough Starter#"));
		expect(section).toBeDefined();
		expect(await page.$$eval(".vault-agent-answer strong", (els) => els.length)).toBeGreaterThan(0);
		const sources = await page.$$eval(".vault-agent-sources a", (as) => as.map((a) => a.textContent));
		expect(sources).toContain(`Sourdough Starter › ${section!.split("#")[1]}`);
		expect(await page.textContent(".vault-agent-trace summary")).toBe("Steps (1)");

		await page.click(".vault-agent-answer a.internal-link >> nth=0");
		await page.click(`.vault-agent-sources a[data-href="${section}"]`, { modifiers: ["Control"] });
		await page.hover(".vault-agent-answer a.internal-link >> nth=1");
		const app = await read(page, (h) => ({ opened: h.app.opened, hovers: h.app.hovers }));
		expect(app.opened).toEqual([
			{ linktext: links[0], sourcePath: ACTIVE, newLeaf: false },
			{ linktext: section, sourcePath: ACTIVE, newLeaf: "tab" },
		]);
		expect(app.hovers.at(-1)).toMatchObject({ source: "vault-agent-ask", sourcePath: ACTIVE });

		expect(await page.$$("img")).toHaveLength(0);
		await page.waitForFunction(() => /Vault Agent: 38 notes/.test(document.querySelector(".vault-agent-statusbar")?.textContent ?? ""));
		await page.$eval(".vault-agent-thread", (el) => (el.scrollTop = 0));
		await screenshot(page, "answer");
		await page.close();
	});

	it("lists the notes sent as context when the context line is opened", async () => {
		const page = await openPane(browser, { settings: { neighbourhoodDepth: 1 } });
		await ask(page, "Who is Gus?");
		await answered(page);
		const summary = await page.textContent(".vault-agent-context summary");
		const count = Number(/^Context: Sourdough Starter and (\d+) linked notes$/.exec(summary ?? "")?.[1]);
		expect(count).toBeGreaterThan(1);
		await page.click(".vault-agent-context summary");
		const notes = await page.$$eval(".vault-agent-context li", (items) => items.map((li) => li.textContent));
		expect(notes[0]).toBe("Recipes/Sourdough Starter.md (open note)");
		expect(notes).toContain("Recipes/Country Loaf.md (linked from it)");
		expect(notes).toHaveLength(count + 1);
		await screenshot(page, "context");
		await page.close();
	});

	it("looks like Obsidian: icon buttons with tooltips, one product name", async () => {
		const page = await openPane(browser);
		await ask(page, "Who is Ruth?");
		await answered(page);
		const buttons = await page.$$eval(".vault-agent-view button", (all: HTMLElement[]) =>
			all
				// Error actions and "Check again" are calls to action in words; hidden ones don't count.
				.filter((b) => !b.closest(".vault-agent-error, .vault-agent-install") && b.offsetParent !== null)
				.map((b) => ({ label: b.getAttribute("aria-label"), text: b.textContent?.trim(), icon: b.querySelector("svg") !== null })),
		);
		expect(buttons.length).toBe(7); // toolbar (3), Ask, the answer's actions (3)
		for (const button of buttons) expect(button, JSON.stringify(button)).toMatchObject({ text: "", icon: true, label: expect.any(String) as unknown });
		const labels = buttons.map((b) => b.label);
		for (const label of ["New conversation", "Conversations", "Save as note", "Ask (Enter)", "Copy answer (markdown)", "Insert at the cursor", "Ask again"]) {
			expect(labels).toContain(label);
		}
		const words = await page.evaluate(() => document.body.innerText);
		expect(words).not.toMatch(/Vault agent\b/); // the product is "Vault Agent" everywhere
		await page.close();
	});

	it("renders a hostile answer where nothing loads: the browser fetches none of its URLs", async () => {
		// A listener counting requests, and an answer (as if the sidecar had missed it all) whose
		// every element would fetch from it; the renderer passes raw HTML through, as Obsidian's.
		const hits: string[] = [];
		const listener: Server = createServer((request, response) => {
			hits.push(request.url ?? "");
			response.end();
		});
		await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
		const leak = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
		const html = [
			`<img src="${leak}/img">`, `<img src="attachments/x.png" srcset="${leak}/srcset 2x">`,
			`<video poster="${leak}/poster"></video>`, `<audio src="${leak}/audio"></audio>`,
			`<iframe src="${leak}/frame"></iframe>`, `<object data="${leak}/object"></object>`,
			`<link rel="stylesheet" href="${leak}/link">`, `<style>@import url(${leak}/import);</style>`,
			`<div style="background-image: url(${leak}/css)">styled</div>`,
			`<svg><image href="${leak}/svg"></image></svg>`, `<input type="image" src="${leak}/input">`,
			`<table background="${leak}/bg"><tr><td>cell</td></tr></table>`,
		].join("\n");
		try {
			const page = await openPane(browser);
			await page.evaluate((markup) => {
				const { harness } = window;
				harness.obsidian.MarkdownRenderer.render = async (_app, _markdown, el) => {
					el.append(...Array.from(new DOMParser().parseFromString(markup, "text/html").body.childNodes));
				};
				const answer = { event: "done", answer: "hostile", sources: [], removed_citations: [], removed_images: [],
					usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
					timings: { total_ms: 1, model_ms: 0, tools_ms: 0 }, profile: "extractive", model: "x", turns: 1 };
				Object.assign(harness.plugin, {
					client: { ...(harness.plugin as unknown as { client: object }).client, ask: async () => ({ kind: "done", done: answer }) },
				});
			}, html);
			await ask(page, "Show me the status board.");
			await page.waitForSelector(".vault-agent-footer");
			await page.waitForTimeout(1000);
			expect(hits).toEqual([]);
			expect(await page.textContent(".vault-agent-answer")).toContain("cell");
			expect(await page.$$eval(".vault-agent-answer [src], .vault-agent-answer [srcset]", (els) => els.length)).toBe(0);
			// The same markup in the page's own document: Chromium does fetch it (not vacuous).
			await page.evaluate((markup) => {
				document.body.append(...Array.from(new DOMParser().parseFromString(markup, "text/html").body.childNodes));
			}, html);
			await expect.poll(() => hits.length, { timeout: 5000 }).toBeGreaterThan(3);
			await page.close();
		} finally {
			// close() waits for open sockets; Chromium may keep some alive (or still loading).
			listener.closeAllConnections();
			await new Promise((resolve) => listener.close(resolve));
		}
	});

	it("says the token is wrong, and opens the settings from the error", async () => {
		const page = await openPane(browser, { settings: { token: "wrong-token-0123456789" } });
		await ask(page, QUESTION);
		await page.waitForSelector(".vault-agent-error");
		expect(await page.textContent(".vault-agent-error-text")).toMatch(/rejected the token/);
		expect(await read(page, (h) => h.notices)).toContainEqual(expect.stringMatching(/rejected the token/));
		await page.click(".vault-agent-error button.vault-agent-action-open-settings");
		expect(await read(page, (h) => h.app.settingsOpened)).toEqual(["open", "vault-agent"]);
		await page.close();
	});

	it("says no token is set, rather than that one was rejected", async () => {
		const page = await openPane(browser, { settings: { token: "" } });
		await ask(page, QUESTION);
		await page.waitForSelector(".vault-agent-error");
		const text = await page.textContent(".vault-agent-error-text");
		expect(text).toMatch(/^No token set/);
		expect(text).not.toMatch(/rejected/);
		await page.close();
	});

	it("says the sidecar is not running, offers to start it, and Retry answers once it is reachable", async () => {
		const page = await openPane(browser, { settings: { sidecarUrl: "http://127.0.0.1:9" } });
		await ask(page, QUESTION);
		await page.waitForSelector(".vault-agent-error");
		expect(await page.textContent(".vault-agent-error-text")).toMatch(/not running at http:\/\/127\.0\.0\.1:9\b/);
		const actions = await page.$$eval(".vault-agent-error button", (all) => all.map((b) => b.textContent));
		expect(actions).toEqual(["Start sidecar", "Open settings", "Retry"]);
		await page.waitForFunction(() => document.querySelector(".vault-agent-statusbar")?.textContent === "Vault Agent: offline");
		await screenshot(page, "error-actions");
		// The user fixes the URL in the settings, then retries.
		const proxy = await page.evaluate(() => (window.harness.app.pluginData as Record<string, { sidecarUrl: string }>)["vault-agent"]!.sidecarUrl);
		expect(proxy).toBe("http://127.0.0.1:9");
		await page.evaluate((url) => (window.harness.plugin.settings.sidecarUrl = url), inject("proxyUrl"));
		await page.click(".vault-agent-error button.vault-agent-action-retry");
		await answered(page);
		expect(await page.$$(".vault-agent-turn")).toHaveLength(1); // the failed turn gave way
		expect(await page.$$eval(".vault-agent-answer a.internal-link", (as) => as.length)).toBeGreaterThan(0);
		await page.close();
	});
});
