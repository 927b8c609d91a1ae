/**
 * Visible state in Chromium: a sidecar still indexing a larger vault (the pane warns that
 * answers may be incomplete, and stops warning when it is done), and a sidecar command that is
 * not installed (the pane shows the command that installs it, copies it, and checks again).
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { answered, ask, launchBrowser, openPane, screenshot, VAULT } from "./pane";
import { startOriginProxy, startSidecar } from "./servers";

let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

/** examples/vault and `count` notes of garden logs: enough to keep a first index busy a while. */
function biggerVault(count: number): string {
	const root = mkdtempSync(path.join(tmpdir(), "vault-agent-e2e-big-"));
	cpSync(VAULT, root, { recursive: true });
	mkdirSync(path.join(root, "Log"));
	const crops = ["tomatoes", "beans", "squash", "garlic", "kale", "leeks", "chard", "peas"];
	for (let i = 0; i < count; i++) {
		const crop = crops[i % crops.length]!;
		const paragraphs = Array.from(
			{ length: 3 },
			(_, p) => `## Bed ${p + 1}\n\nChecked the ${crop} in bed ${p + 1} on round ${i}: watered ${(i * 7 + p) % 13} litres, ` +
				`pulled weeds along the path, noted ${(i + p) % 5} new flowers and a slug trail near the compost bins.`,
		);
		writeFileSync(path.join(root, "Log", `Garden log ${i}.md`), `# Garden log ${i}\n\n${paragraphs.join("\n\n")}\n`);
	}
	return root;
}

describe("the pane shows what the sidecar is doing", () => {
	it("warns while the vault is being indexed that answers may be incomplete", async () => {
		const vault = biggerVault(80);
		const sidecar = await startSidecar(vault, inject("token"), false);
		const proxy = await startOriginProxy(sidecar.url, inject("harnessUrl"));
		try {
			const page = await openPane(browser, { settings: { sidecarUrl: proxy.url } });
			await page.waitForSelector(".vault-agent-index-banner:visible", { timeout: 60_000 });
			expect(await page.textContent(".vault-agent-index-banner")).toMatch(/^Indexing your vault( \(\d+ of \d+ notes\))?: answers may miss notes/);
			await ask(page, "When did I last feed the sourdough starter?");
			await answered(page);
			expect(await page.textContent(".vault-agent-turn-warning")).toMatch(/answers may miss notes/);
			await page.waitForFunction(() => /Indexing/.test(document.querySelector(".vault-agent-statusbar")?.textContent ?? ""));
			await screenshot(page, "indexing");
			// Done: the warning goes.
			await page.waitForSelector(".vault-agent-index-banner", { state: "hidden", timeout: 120_000 });
			await page.close();
		} finally {
			await proxy.close();
			await sidecar.close();
			rmSync(vault, { recursive: true, force: true });
		}
	}, 180_000);

	it("shows how to install the sidecar when its command is not found, and checks again", async () => {
		const page = await openPane(browser, {
			settings: { autoStart: true, sidecarUrl: "http://127.0.0.1:9", sidecarCommand: "vault-agent-not-installed-e2e serve" },
		});
		await page.waitForSelector(".vault-agent-install:visible");
		const commands = await page.$$eval(".vault-agent-install code", (els) => els.map((el) => el.textContent));
		expect(commands).toEqual(["uv tool install vault-agent", "pipx install vault-agent"]);
		expect(await page.textContent(".vault-agent-install-text")).toMatch(/not installed \(its command was not found\)/);
		await page.click(".vault-agent-install button.vault-agent-install-copy >> nth=0");
		await page.waitForFunction(() => window.harness.notices.includes("Copied."));
		expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("uv tool install vault-agent");
		await screenshot(page, "install");
		// Installed meanwhile (here: a command that exists): Check again.
		await page.evaluate(() => (window.harness.plugin.settings.sidecarCommand = `${"/bin/sleep"} 1`));
		await page.click("button.vault-agent-install-check");
		await page.waitForSelector(".vault-agent-install", { state: "hidden" });
		await page.close();
	});
});
