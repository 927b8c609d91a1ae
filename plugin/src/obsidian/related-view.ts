/**
 * The related notes view: the notes closest in meaning to the active note (`POST /v1/related`,
 * from the sidecar's index), following the active note (debounced). A click opens a note
 * (mod-click: a new tab), dragging one into an editor inserts a link to it (as Obsidian's own
 * link format setting writes it), hovering shows Obsidian's page preview. Notes linked to or
 * from the active note are marked.
 */
import { ItemView, Keymap, TFile, debounce, setIcon, setTooltip, type HoverParent, type HoverPopover, type WorkspaceLeaf } from "obsidian";
import type { SidecarClient } from "../client";
import { SidecarError } from "../client";
import type { RelatedNote } from "../generated/contract";
import type { Problem } from "../problems";

export const VIEW_TYPE_RELATED = "vault-agent-related";

/** Wait this long after the active note changes before asking (switching fast asks once). */
const FOLLOW_MS = 400;
const LIMIT = 15;

export interface RelatedHost {
	readonly client: Pick<SidecarClient, "related">;
	/** A failed request as a problem, without a notice (the view shows it). */
	quietProblemOf(error: unknown): Problem;
}

const LINKED: Record<NonNullable<RelatedNote["linked"]>, string> = {
	link: "The note links here",
	backlink: "Links to the note",
	both: "Linked both ways",
};

export class RelatedView extends ItemView implements HoverParent {
	hoverPopover: HoverPopover | null = null;
	private headerEl!: HTMLElement;
	private listEl!: HTMLElement;
	/** The note the list is about. */
	private file: string | null = null;
	private request = 0;
	private readonly follow = debounce(() => void this.refresh(), FOLLOW_MS, true);

	constructor(
		leaf: WorkspaceLeaf,
		private readonly host: RelatedHost,
	) {
		super(leaf);
	}

	getViewType(): string {
		return VIEW_TYPE_RELATED;
	}

	getDisplayText(): string {
		return "Related notes";
	}

	override getIcon(): string {
		return "waypoints";
	}

	/** The note the list is about, and the files listed (for tests and commands). */
	get shownFor(): string | null {
		return this.file;
	}

	override async onOpen(): Promise<void> {
		const root = this.contentEl;
		root.empty();
		root.addClass("vault-agent-related");
		this.headerEl = root.createDiv({ cls: "vault-agent-related-header" });
		this.listEl = root.createDiv({ cls: "vault-agent-related-list" });
		this.registerEvent(this.app.workspace.on("file-open", () => this.follow()));
		this.registerEvent(this.app.workspace.on("active-leaf-change", () => this.follow()));
		this.registerDomEvent(this.listEl, "click", (evt) => this.open(evt, Keymap.isModEvent(evt)));
		this.registerDomEvent(this.listEl, "auxclick", (evt) => {
			if (evt.button === 1) this.open(evt, "tab");
		});
		this.registerDomEvent(this.listEl, "mouseover", (evt) => this.hover(evt));
		this.registerDomEvent(this.listEl, "dragstart", (evt) => this.drag(evt));
		await this.refresh();
	}

	override async onClose(): Promise<void> {
		this.follow.cancel();
	}

	/** Ask again for the active note (also when it did not change: the index may have). */
	async refresh(): Promise<void> {
		const active = this.app.workspace.getActiveFile();
		if (!active || active.extension !== "md") {
			if (this.file === null) this.showMessage("Open a note to see the notes related to it.");
			return; // the sidebar took focus, or a non-note is open: keep the list
		}
		this.file = active.path;
		const request = ++this.request;
		this.headerEl.setText(`Related to ${active.basename}`);
		try {
			const answer = await this.host.client.related(active.path, LIMIT);
			if (request !== this.request) return; // a newer note was asked about meanwhile
			this.render(answer.notes);
			this.listEl.setAttr("data-for", answer.file);
		} catch (error) {
			if (request !== this.request) return;
			if (error instanceof SidecarError && error.code === "note_not_found") {
				this.showMessage("This note is not indexed yet: save it, or wait for the index to catch up.");
			} else {
				this.showMessage(this.host.quietProblemOf(error).message);
			}
		}
	}

	private render(notes: RelatedNote[]): void {
		this.listEl.empty();
		if (notes.length === 0) {
			this.showMessage("No related notes found.");
			return;
		}
		for (const note of notes) {
			const item = this.listEl.createDiv({ cls: "vault-agent-related-item", attr: { draggable: "true", "data-file": note.file } });
			const title = item.createDiv({ cls: "vault-agent-related-title" });
			title.createEl("a", {
				cls: "internal-link",
				text: note.title || note.file,
				href: note.file,
				attr: { "data-href": note.file },
			});
			if (note.linked) {
				const badge = title.createSpan({ cls: "vault-agent-related-linked", attr: { "data-linked": note.linked } });
				setIcon(badge, "link");
				setTooltip(badge, LINKED[note.linked]);
			}
			item.createDiv({ cls: "vault-agent-related-snippet", text: note.snippet });
		}
	}

	private showMessage(message: string): void {
		this.listEl.empty();
		this.listEl.createDiv({ cls: "vault-agent-empty", text: message });
	}

	private fileOf(evt: Event): string | null {
		const target = evt.target;
		if (!(target instanceof Element)) return null;
		return target.closest(".vault-agent-related-item")?.getAttribute("data-file") ?? null;
	}

	private open(evt: MouseEvent, newLeaf: ReturnType<typeof Keymap.isModEvent>): void {
		const file = this.fileOf(evt);
		if (!file) return;
		evt.preventDefault();
		void this.app.workspace.openLinkText(file, this.file ?? "", newLeaf);
	}

	private hover(evt: MouseEvent): void {
		const file = this.fileOf(evt);
		const target = evt.target instanceof Element ? evt.target.closest(".vault-agent-related-item") : null;
		if (!file || !target) return;
		this.app.workspace.trigger("hover-link", {
			event: evt,
			source: VIEW_TYPE_RELATED,
			hoverParent: this,
			targetEl: target,
			linktext: file,
			sourcePath: this.file ?? "",
		});
	}

	/** Dragged into an editor, a note becomes a link to it, written as the user's settings say. */
	private drag(evt: DragEvent): void {
		const path = this.fileOf(evt);
		const file = path ? this.app.vault.getAbstractFileByPath(path) : null;
		if (!(file instanceof TFile) || !evt.dataTransfer) return;
		const link = this.app.fileManager.generateMarkdownLink(file, this.file ?? "");
		evt.dataTransfer.setData("text/plain", link);
		evt.dataTransfer.effectAllowed = "copyLink";
	}
}
