/**
 * The status bar item: the index as `GET /v1/index` describes it (progress while a sync runs),
 * polled often while busy and rarely when idle; a click shows the details. Whoever needs the
 * index state (the pane's banner) listens through `onChange`.
 */
import { Notice, type Plugin } from "obsidian";
import { SidecarError, type SidecarClient } from "../client";
import type { IndexResponse } from "../generated/contract";
import { POLL_BUSY_MS, POLL_IDLE_MS, describeFailure, describeIndex, type StatusLine } from "../status";

const NOTICE_MS = 10_000;

export interface StatusBarHost {
	/** `GET /v1/index`, problems only (the client is swapped in tests, so asked each time). */
	index(): ReturnType<SidecarClient["index"]>;
	/** The plugin started the sidecar and it may still be coming up: poll soon. */
	sidecarStarting(): boolean;
	/** The token is wrong: tell the user once per run of failures. */
	reportWrongToken(error: SidecarError): void;
	/** The index state changed (or could not be read: null). */
	onChange(status: IndexResponse | null): void;
}

export class StatusBar {
	private readonly el: HTMLElement;
	private detail = "";
	private nextPollAt = 0;
	private polling = false;
	private tokenReported = false;

	constructor(
		plugin: Plugin,
		private readonly host: StatusBarHost,
	) {
		this.el = plugin.addStatusBarItem();
		this.el.addClass("vault-agent-statusbar", "mod-clickable");
		this.el.setText("Vault Agent");
		plugin.registerDomEvent(this.el, "click", () => {
			if (this.detail) new Notice(this.detail, NOTICE_MS);
		});
		plugin.registerInterval(window.setInterval(() => void this.poll(), POLL_BUSY_MS));
	}

	/** Poll at the next tick, whatever the schedule said. */
	soon(): void {
		this.nextPollAt = 0;
	}

	/** Refresh from `GET /v1/index` when it is due (or `force`). */
	async poll(force = false): Promise<void> {
		if (this.polling || (!force && Date.now() < this.nextPollAt)) return;
		this.polling = true;
		try {
			let line: StatusLine;
			let status: IndexResponse | null = null;
			try {
				status = await this.host.index();
				line = describeIndex(status);
				this.tokenReported = false;
			} catch (error) {
				line = describeFailure(error);
				const wrongToken = error instanceof SidecarError && error.kind === "unauthorized";
				if (wrongToken && !this.tokenReported) this.host.reportWrongToken(error);
				this.tokenReported = wrongToken;
			}
			this.el.setText(line.text);
			this.el.setAttr("aria-label", line.detail);
			this.detail = line.detail;
			this.host.onChange(status);
			// Soon while a sync runs, or while a sidecar we started is still coming up.
			const soon = line.busy || (status === null && this.host.sidecarStarting());
			this.nextPollAt = Date.now() + (soon ? POLL_BUSY_MS : POLL_IDLE_MS);
		} finally {
			this.polling = false;
		}
	}
}
