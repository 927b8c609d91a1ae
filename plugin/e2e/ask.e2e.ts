/**
 * The built plugin (main.js) in headless Chromium, against a real `vault-agent serve` on the
 * example vault: a question typed into the pane streams back, its citations open notes.
 * See servers.ts for how the page reaches a sidecar that only accepts app://obsidian.md.
 */
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "./harness";
import { REPO, readVault, startHarnessServer, startOriginProxy, startSidecar, type Running, type Sidecar } from "./servers";

const VAULT = path.join(REPO, "examples/vault");
const TOKEN = "e2e-token-0123456789abcdef";
const ACTIVE = "Recipes/Sourdough Starter.md";
const QUESTION = "When did I last feed the sourdough starter?";
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SCREENSHOT = path.join(REPO, "plugin/dist/screenshot.png");

let sidecar: Sidecar;
let harness: Running;
let proxy: Running;
let browser: Browser;

beforeAll(async () => {
	for (const built of ["main.js", "plugin/dist/harness.js"]) {
		if (!existsSync(path.join(REPO, built))) throw new Error(`${built} is missing: run \`npm run build\` first`);
	}
	if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: run \`make plugin-setup\``);
	[sidecar, harness] = await Promise.all([startSidecar(VAULT, TOKEN), startHarnessServer(VAULT)]);
	proxy = await startOriginProxy(sidecar.url, harness.url, 15);
	browser = await chromium.launch({
		executablePath: CHROMIUM,
		args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
	});
});

afterAll(async () => {
	await browser?.close();
	await Promise.all([proxy?.close(), harness?.close()]);
	await sidecar?.close();
});

async function openPane(settings: Record<string, unknown> = {}): Promise<Page> {
	const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
	const errors: string[] = [];
	page.on("pageerror", (error) => errors.push(error.message));
	await page.goto(harness.url);
	const vault = readVault(VAULT);
	await page.evaluate(
		(options) => window.startHarness(options),
		{ ...vault, activePath: ACTIVE, settings: { sidecarUrl: proxy.url, token: TOKEN, profile: "extractive", ...settings } },
	);
	await page.waitForSelector(".vault-agent-view textarea");
	expect(errors).toEqual([]);
	return page;
}

async function ask(page: Page, question: string): Promise<void> {
	await page.fill(".vault-agent-view textarea", question);
	await page.press(".vault-agent-view textarea", "Enter");
}

const read = <T>(page: Page, pick: (h: Harness) => T): Promise<T> =>
	page.evaluate<T>(`(${pick.toString()})(window.harness)`);

describe("the pane in Chromium, against vault-agent serve", () => {
	it("streams the answer, then shows citations that open the cited note", async () => {
		const page = await openPane();
		await ask(page, QUESTION);

		await page.waitForSelector(".vault-agent-answer a.internal-link", { timeout: 30_000 });
		const streamed = await read(page, (h) => h.streamed);
		const beforeAnswer = streamed.filter((s) => !s.answerRendered).map((s) => s.text);
		expect(beforeAnswer.length).toBeGreaterThanOrEqual(3); // the text grew in steps...
		for (let i = 1; i < beforeAnswer.length; i++) expect(beforeAnswer[i]?.startsWith(beforeAnswer[i - 1] ?? "")).toBe(true);
		expect(beforeAnswer.at(-1)).toContain("[[Daily/2026-11-11]]"); // ...as raw text, before rendering

		// A long answer is shown from its question down.
		await page.waitForSelector(".vault-agent-footer");
		const [question, thread] = await Promise.all([page.$(".vault-agent-question"), page.$(".vault-agent-thread")]);
		const [questionBox, threadBox] = await Promise.all([question!.boundingBox(), thread!.boundingBox()]);
		expect(questionBox!.y).toBeGreaterThanOrEqual(threadBox!.y);

		const links = await page.$$eval(".vault-agent-answer a.internal-link", (as) => as.map((a) => a.getAttribute("data-href")));
		// The newest daily notes about the starter come first (which day leads is retrieval's
		// business, tested in Python); the day it was last fed must be among the citations.
		expect(links[0]).toMatch(/^Daily\/2026-11-\d\d$/);
		expect(links).toContain("Daily/2026-11-11");
		expect(links).toContain("Recipes/Sourdough Starter#Reviving from the fridge");
		const sources = await page.$$eval(".vault-agent-sources a", (as) => as.map((a) => a.textContent));
		expect(sources).toContain("Sourdough Starter › Reviving from the fridge");
		expect(await page.textContent(".vault-agent-trace summary")).toBe("Steps (1)");

		await page.click(".vault-agent-answer a.internal-link >> nth=0");
		await page.click('.vault-agent-sources a[data-href="Recipes/Sourdough Starter#Reviving from the fridge"]', { modifiers: ["Control"] });
		await page.hover(".vault-agent-answer a.internal-link >> nth=1");
		const app = await read(page, (h) => ({ opened: h.app.opened, hovers: h.app.hovers }));
		expect(app.opened).toEqual([
			{ linktext: links[0], sourcePath: ACTIVE, newLeaf: false },
			{ linktext: "Recipes/Sourdough Starter#Reviving from the fridge", sourcePath: ACTIVE, newLeaf: "tab" },
		]);
		expect(app.hovers.at(-1)).toMatchObject({ source: "vault-agent-ask", sourcePath: ACTIVE });

		expect(await page.$$("img")).toHaveLength(0);
		await page.waitForFunction(() => /38 notes/.test(document.querySelector(".vault-agent-statusbar")?.textContent ?? ""));

		await page.$eval(".vault-agent-thread", (el) => (el.scrollTop = 0));
		await page.mouse.move(600, 400);
		mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
		await page.screenshot({ path: SCREENSHOT });
		if (process.env.VAULT_AGENT_SCREENSHOT) copyFileSync(SCREENSHOT, path.resolve(REPO, process.env.VAULT_AGENT_SCREENSHOT));
		await page.close();
	});

	it("sends the active note and its neighbourhood as context", async () => {
		const page = await openPane({ neighbourhoodDepth: 1 });
		await ask(page, "Who is Gus?");
		await page.waitForSelector(".vault-agent-answer", { state: "attached" });
		await page.waitForSelector(".vault-agent-footer", { timeout: 30_000 });
		const context = await page.textContent(".vault-agent-context");
		expect(context).toMatch(/^Context: Sourdough Starter and \d+ linked notes$/);
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
			const page = await openPane();
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
			await new Promise((resolve) => listener.close(resolve));
		}
	});

	it("tells the user clearly when the token is wrong", async () => {
		const page = await openPane({ token: "wrong-token-0123456789" });
		await ask(page, QUESTION);
		await page.waitForSelector(".vault-agent-error");
		expect(await page.textContent(".vault-agent-error")).toMatch(/rejected the token/);
		expect(await read(page, (h) => h.notices)).toContainEqual(expect.stringMatching(/rejected the token/));
		await page.close();
	});

	it("tells the user clearly when the sidecar is not running", async () => {
		const page = await openPane({ sidecarUrl: "http://127.0.0.1:9" });
		await ask(page, QUESTION);
		await page.waitForSelector(".vault-agent-error");
		expect(await page.textContent(".vault-agent-error")).toMatch(/not running at http:\/\/127\.0\.0\.1:9\b/);
		expect(await page.textContent(".vault-agent-statusbar")).toBe("Vault agent: offline");
		await page.close();
	});
});
