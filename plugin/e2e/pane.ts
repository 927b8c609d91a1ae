/**
 * What every browser test does: launch Chromium, open the harness page with the plugin loaded
 * against the suite's sidecar (see global-setup.ts), ask, read what `window.harness` recorded,
 * and save screenshots of the states worth seeing (plugin/dist/screenshots/, copied into docs/
 * by `npm run screenshot`).
 */
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { expect, inject } from "vitest";
import type { Harness } from "./harness";
import { REPO, readVault } from "./servers";

export const VAULT = path.join(REPO, "examples/vault");
export const ACTIVE = "Recipes/Sourdough Starter.md";
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const SCREENSHOTS = path.join(REPO, "plugin/dist/screenshots");

export async function launchBrowser(): Promise<Browser> {
	for (const built of ["main.js", "plugin/dist/harness.js"]) {
		if (!existsSync(path.join(REPO, built))) throw new Error(`${built} is missing: run \`npm run build\` first`);
	}
	if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: run \`make plugin-setup\``);
	return chromium.launch({
		executablePath: CHROMIUM,
		args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
	});
}

export interface PaneOptions {
	/** Plugin settings over the defaults (sidecar URL: the suite's proxy; its token; extractive). */
	settings?: Record<string, unknown>;
	activePath?: string;
	viewport?: { width: number; height: number };
}

/** The harness page with the plugin loaded and its pane open. */
export async function openPane(browser: Browser, options: PaneOptions = {}): Promise<Page> {
	const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 1000 } });
	await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: inject("harnessUrl") });
	const page = await context.newPage();
	const errors: string[] = [];
	page.on("pageerror", (error) => errors.push(error.message));
	// The plugin's child_process.spawn, run for real by this process (see harness.ts).
	await page.exposeFunction("nodeSpawn", (program: string, args: string[]) => realSpawn(program, args));
	await page.goto(inject("harnessUrl"));
	const vault = readVault(VAULT);
	const settings = { sidecarUrl: inject("proxyUrl"), token: inject("token"), profile: "extractive", ...options.settings };
	await page.evaluate((start) => window.startHarness(start), { ...vault, activePath: options.activePath ?? ACTIVE, settings });
	await page.waitForSelector(".vault-agent-view textarea");
	expect(errors).toEqual([]);
	return page;
}

function realSpawn(program: string, args: string[]): Promise<{ pid?: number; error?: { code: string; message: string } }> {
	return new Promise((resolve) => {
		const child = spawn(program, args, { stdio: "ignore" });
		child.on("spawn", () => {
			resolve({ pid: child.pid ?? 0 });
			child.kill();
		});
		child.on("error", (error: NodeJS.ErrnoException) => resolve({ error: { code: error.code ?? "", message: error.message } }));
	});
}

export async function ask(page: Page, question: string): Promise<void> {
	await page.fill(".vault-agent-view textarea", question);
	await page.press(".vault-agent-view textarea", "Enter");
}

/** Wait for the last turn's answer to be complete (its footer shown). */
export async function answered(page: Page, turns = 1): Promise<void> {
	await page.waitForFunction((n) => document.querySelectorAll(".vault-agent-turn .vault-agent-footer").length >= n, turns, { timeout: 30_000 });
}

export const read = <T>(page: Page, pick: (h: Harness) => T): Promise<T> => page.evaluate<T>(`(${pick.toString()})(window.harness)`);

/** Save a screenshot of the page as plugin/dist/screenshots/<name>.png (and into $VAULT_AGENT_SCREENSHOTS). */
export async function screenshot(page: Page, name: string): Promise<void> {
	mkdirSync(SCREENSHOTS, { recursive: true });
	const file = path.join(SCREENSHOTS, `${name}.png`);
	await page.mouse.move(640, 980);
	await page.screenshot({ path: file });
	const copyTo = process.env.VAULT_AGENT_SCREENSHOTS;
	if (copyTo) {
		mkdirSync(path.resolve(REPO, copyTo), { recursive: true });
		copyFileSync(file, path.resolve(REPO, copyTo, `${name}.png`));
	}
}
