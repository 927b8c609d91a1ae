/**
 * The built plugin (main.js) in headless Chromium, against a real `vault-agent serve` on the
 * example vault: a question typed into the pane streams back, its citations open notes.
 * See servers.ts for how the page reaches a sidecar that only accepts app://obsidian.md.
 */
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
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
