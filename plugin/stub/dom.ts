/**
 * The DOM helpers Obsidian adds to every element (`createEl`, `createDiv`, `setText`...), for
 * tests and the e2e harness. Only the ones the plugin calls, with the options it passes.
 */

interface ElOptions {
	cls?: string | string[];
	text?: string;
	attr?: Record<string, string | number | boolean | null>;
	href?: string;
	title?: string;
	placeholder?: string;
	type?: string;
	value?: string;
}

type Helpers = {
	createEl<K extends keyof HTMLElementTagNameMap>(tag: K, options?: ElOptions | string): HTMLElementTagNameMap[K];
	createDiv(options?: ElOptions | string): HTMLDivElement;
	createSpan(options?: ElOptions | string): HTMLSpanElement;
	empty(): void;
	setText(text: string): void;
	addClass(...classes: string[]): void;
	removeClass(...classes: string[]): void;
	toggleClass(classes: string | string[], value: boolean): void;
	hasClass(cls: string): boolean;
	setAttr(name: string, value: string | number | boolean | null): void;
	show(): void;
	hide(): void;
	toggle(show: boolean): void;
	isShown(): boolean;
};

function createEl(this: HTMLElement, tag: string, options: ElOptions | string = {}): HTMLElement {
	const opts: ElOptions = typeof options === "string" ? { cls: options } : options;
	const el = this.ownerDocument.createElement(tag);
	if (opts.cls) el.className = Array.isArray(opts.cls) ? opts.cls.join(" ") : opts.cls;
	if (opts.text !== undefined) el.textContent = opts.text;
	if (opts.href !== undefined) el.setAttribute("href", opts.href);
	if (opts.title !== undefined) el.setAttribute("title", opts.title);
	if (opts.placeholder !== undefined) el.setAttribute("placeholder", opts.placeholder);
	if (opts.type !== undefined) el.setAttribute("type", opts.type);
	if (opts.value !== undefined) (el as HTMLInputElement).value = opts.value;
	for (const [name, value] of Object.entries(opts.attr ?? {})) {
		if (value !== null && value !== false) el.setAttribute(name, String(value));
	}
	this.appendChild(el);
	return el;
}

const helpers: Helpers & ThisType<HTMLElement> = {
	createEl: createEl as Helpers["createEl"],
	createDiv(options) {
		return this.createEl("div", options);
	},
	createSpan(options) {
		return this.createEl("span", options);
	},
	empty() {
		while (this.firstChild) this.removeChild(this.firstChild);
	},
	setText(text) {
		this.textContent = text;
	},
	addClass(...classes) {
		this.classList.add(...classes.flatMap((c) => c.split(" ").filter(Boolean)));
	},
	removeClass(...classes) {
		this.classList.remove(...classes);
	},
	toggleClass(classes, value) {
		for (const cls of Array.isArray(classes) ? classes : [classes]) this.classList.toggle(cls, value);
	},
	hasClass(cls) {
		return this.classList.contains(cls);
	},
	setAttr(name, value) {
		if (value === null || value === false) this.removeAttribute(name);
		else this.setAttribute(name, String(value));
	},
	show() {
		this.style.removeProperty("display");
	},
	hide() {
		this.style.setProperty("display", "none");
	},
	toggle(show) {
		if (show) this.style.removeProperty("display");
		else this.style.setProperty("display", "none");
	},
	isShown() {
		return this.style.getPropertyValue("display") !== "none";
	},
};

/** Install the helpers on HTMLElement.prototype, and the global createEl/createDiv (once). */
export function installDomHelpers(): void {
	const proto = HTMLElement.prototype as unknown as Record<string, unknown>;
	if (typeof proto.createDiv === "function") return;
	for (const [name, fn] of Object.entries(helpers)) {
		Object.defineProperty(proto, name, { value: fn, configurable: true, writable: true });
	}
	// Obsidian's globals make detached elements.
	const detached = (tag: string, options?: ElOptions | string): HTMLElement => {
		const holder = document.createElement("div");
		const el = createEl.call(holder, tag, options);
		el.remove();
		return el;
	};
	Object.assign(globalThis, {
		createEl: detached,
		createDiv: (options?: ElOptions | string) => detached("div", options),
		createSpan: (options?: ElOptions | string) => detached("span", options),
	});
}
