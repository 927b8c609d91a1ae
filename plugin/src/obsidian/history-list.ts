/**
 * The pane's list of saved conversations: open one (to read or continue it), rename it in
 * place, delete it. It only shows and reports; the view and the plugin own the data.
 */
import { Component, setIcon, setTooltip } from "obsidian";
import { displayTitle, type Conversation } from "../conversations";

export interface HistoryActions {
	open(id: string): void;
	rename(id: string, title: string): void;
	delete(id: string): void;
}

export class HistoryList extends Component {
	readonly el: HTMLElement;

	constructor(
		parent: HTMLElement,
		private readonly actions: HistoryActions,
	) {
		super();
		this.el = parent.createDiv({ cls: "vault-agent-history" });
		this.el.hide();
	}

	get shown(): boolean {
		return this.el.isShown();
	}

	toggle(show: boolean, conversations: readonly Conversation[], currentId: string): void {
		this.el.toggle(show);
		if (show) this.render(conversations, currentId);
	}

	render(conversations: readonly Conversation[], currentId: string): void {
		this.el.empty();
		this.el.createDiv({ cls: "vault-agent-history-title", text: "Conversations" });
		if (conversations.length === 0) {
			this.el.createDiv({ cls: "vault-agent-empty", text: "No saved conversations yet." });
			return;
		}
		const list = this.el.createDiv({ cls: "vault-agent-history-list" });
		for (const conversation of conversations) this.renderRow(list, conversation, conversation.id === currentId);
	}

	private renderRow(list: HTMLElement, conversation: Conversation, current: boolean): void {
		const row = list.createDiv({ cls: "vault-agent-history-item", attr: { "data-id": conversation.id } });
		row.toggleClass("is-active", current);
		const title = row.createDiv({ cls: "vault-agent-history-name", text: displayTitle(conversation) });
		row.createDiv({
			cls: "vault-agent-history-meta",
			text: `${conversation.exchanges.length} ${conversation.exchanges.length === 1 ? "question" : "questions"} · ${new Date(conversation.updated).toLocaleString()}`,
		});
		this.registerDomEvent(title, "click", () => this.actions.open(conversation.id));
		const buttons = row.createDiv({ cls: "vault-agent-history-buttons" });
		const rename = iconButton(buttons, "pencil", "Rename", "vault-agent-history-rename");
		const remove = iconButton(buttons, "trash-2", "Delete", "vault-agent-history-delete");
		this.registerDomEvent(rename, "click", () => this.editTitle(row, title, conversation));
		this.registerDomEvent(remove, "click", () => this.actions.delete(conversation.id));
	}

	/** Rename in place: Enter (or leaving the box) saves, Escape cancels. */
	private editTitle(row: HTMLElement, title: HTMLElement, conversation: Conversation): void {
		const input = createEl("input", {
			cls: "vault-agent-history-input",
			attr: { type: "text", "aria-label": "Conversation name" },
		});
		input.value = displayTitle(conversation);
		title.replaceWith(input);
		input.focus();
		input.select();
		let done = false;
		const finish = (save: boolean) => {
			if (done) return;
			done = true;
			const value = input.value.trim();
			input.replaceWith(title);
			if (save && value) this.actions.rename(conversation.id, value);
		};
		this.registerDomEvent(input, "keydown", (evt) => {
			if (evt.key === "Enter") finish(true);
			if (evt.key === "Escape") {
				evt.stopPropagation();
				finish(false);
			}
		});
		this.registerDomEvent(input, "blur", () => finish(true));
		row.addClass("is-editing");
	}
}

export function iconButton(parent: HTMLElement, icon: string, tooltip: string, cls: string): HTMLButtonElement {
	const button = parent.createEl("button", { cls: `clickable-icon ${cls}` });
	setIcon(button, icon);
	setTooltip(button, tooltip);
	return button;
}
