/**
 * The pane's banners: the index being built (answers may be incomplete), and the sidecar not
 * installed, with the command that installs it, a copy button and "Check again".
 */
import { Component } from "obsidian";
import { INSTALL_COMMANDS, INSTALL_HELP } from "../install";
import { iconButton } from "./history-list";

export class IndexBanner {
	readonly el: HTMLElement;

	constructor(parent: HTMLElement) {
		this.el = parent.createDiv({ cls: "vault-agent-banner vault-agent-index-banner" });
		this.el.hide();
	}

	show(warning: string | null): void {
		this.el.setText(warning ?? "");
		this.el.toggle(warning !== null);
	}
}

export interface InstallActions {
	copy(text: string): void;
	checkAgain(): void;
}

export class InstallBanner extends Component {
	readonly el: HTMLElement;

	constructor(parent: HTMLElement, actions: InstallActions) {
		super();
		this.el = parent.createDiv({ cls: "vault-agent-banner vault-agent-install" });
		this.el.createDiv({ cls: "vault-agent-install-text", text: INSTALL_HELP });
		for (const command of INSTALL_COMMANDS) {
			const row = this.el.createDiv({ cls: "vault-agent-install-command" });
			row.createEl("code", { text: command });
			const copy = iconButton(row, "copy", "Copy the command", "vault-agent-install-copy");
			this.registerDomEvent(copy, "click", () => actions.copy(command));
		}
		const check = this.el.createEl("button", { text: "Check again", cls: "vault-agent-install-check" });
		this.registerDomEvent(check, "click", () => actions.checkAgain());
		this.el.hide();
	}

	show(missing: boolean): void {
		this.el.toggle(missing);
	}
}
