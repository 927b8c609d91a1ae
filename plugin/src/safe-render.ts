/**
 * What an answer may load in the pane: an allowlist applied to the rendered DOM.
 *
 * An answer quotes notes, and a note can carry (or tell the model to build) a URL that the
 * pane would fetch by itself: an image whose address holds what the agent read is enough to
 * send it away. The sidecar already rewrites such answers (agent/safe_markdown.py); the pane
 * checks again, on what Obsidian's renderer actually produced, so that a difference between two
 * markdown parsers cannot let anything through:
 *
 * - the answer is rendered into a document that has no window (`inertContainer`): nothing in it
 *   loads, whatever its attributes say, until it is moved into the pane;
 * - `sanitiseRendered` then turns every embed (`![[Note]]`, which Obsidian fills after the render
 *   returns) into a link, removes every element that would load something that is not a vault
 *   resource (images, media, frames, objects, styles, SVG images and animations...), every
 *   attribute that would (a remote `background`, a style or SVG paint with a function or an
 *   escape in it, event handlers, `ping`) and every attribute of no list (text, URL, style:
 *   `attributionsrc` fetches by itself), and turns links to anything but web pages and the
 *   vault (`javascript:`, `obsidian:`...) into their text.
 *
 * A fence is made plain code before the render (./runnable.ts): what Obsidian hands to a
 * diagram or a plugin's code block runs during the render, before any check of the DOM.
 *
 * URLs are judged as the browser parses them (the WHATWG `URL`), never by their spelling, with
 * the sidecar's rules (agent/vault_urls.py): a vault resource is a relative URL or an `app:` URL
 * (Obsidian serves vault files on it); a safe link is a vault resource or an http(s) page.
 * No `obsidian` import: tested in happy-dom (plugin/tests/safe-render.test.ts; through the pane,
 * plugin/tests/obsidian/turn.test.ts).
 */

const BASE_HOST = "vault.invalid";
const XHTML = "http://www.w3.org/1999/xhtml";
const XLINK = "http://www.w3.org/1999/xlink";
/** `https:x` is a relative path on an https page but `https://x/` elsewhere: only a URL that
 * stays relative on pages of two schemes is relative everywhere. */
const BASES = [`https://${BASE_HOST}/vault/`, `http://${BASE_HOST}/vault/`];
const RESOURCE_SCHEMES = new Set(["app:"]);
const LINK_SCHEMES = new Set(["http:", "https:"]);

/** True when loading `url` (as an image, media, frame or style) stays on this machine. */
export function isVaultResource(url: string): boolean {
	const scheme = schemeOf(url);
	return scheme === null ? staysRelative(url) : RESOURCE_SCHEMES.has(scheme) && namesNoOtherMachine(url);
}

/** True when `url` may stay a clickable link: a vault resource or a web page. */
export function isSafeLink(url: string): boolean {
	const scheme = schemeOf(url);
	if (scheme === null) return staysRelative(url);
	return (RESOURCE_SCHEMES.has(scheme) && namesNoOtherMachine(url)) || LINK_SCHEMES.has(scheme);
}

/**
 * Obsidian serves a vault file at `app://<id>/<its absolute path>`; a path naming another
 * machine (`//host/share`, `\\host\share`: a network share on Windows) would be fetched from it.
 */
function namesNoOtherMachine(url: string): boolean {
	let path = new URL(url).pathname;
	try {
		path = decodeURIComponent(path);
	} catch {
		return false; // a malformed escape: no file's path
	}
	return !path.startsWith("//") && !path.includes("\\");
}

function schemeOf(url: string): string | null {
	try {
		return new URL(url).protocol.toLowerCase();
	} catch {
		return null; // no scheme, or no valid URL on its own
	}
}

function staysRelative(url: string): boolean {
	for (const base of BASES) {
		try {
			const resolved = new URL(url, base);
			if (!base.startsWith(resolved.protocol) || resolved.host !== BASE_HOST) return false;
		} catch {
			return false;
		}
	}
	return true;
}

/**
 * A container in a new document without a browsing context: elements created or parsed in it
 * fetch nothing (no image, frame or stylesheet loads) until they are adopted by the pane's.
 */
export function inertContainer(like: Node): HTMLElement {
	const owner = like.ownerDocument ?? (like as Document);
	return owner.implementation.createHTMLDocument("").body;
}

/** Elements removed wherever they are: they load, run or restyle whatever their URL. */
const ALWAYS_REMOVED = new Set([
	"script", "style", "link", "meta", "base", "iframe", "frame", "frameset", "object", "embed", "applet",
	"portal", "noscript", "template", "set", "animate", "animatemotion", "animatetransform", "discard",
	"webview", "fencedframe",
	"form", // submits to the pane's own page, reloading Obsidian, or names fields that shadow the DOM's
]);
/** Elements that exist to load their URL: removed when it is not a vault resource. */
const MEDIA = new Set(["img", "picture", "source", "video", "audio", "track", "image", "use", "feimage", "input"]);
/** Attributes holding URLs the browser fetches (`href` too, except on links). */
const URL_ATTRIBUTES = new Set([
	"src", "srcset", "imagesrcset", "href", "data", "poster", "background", "action", "formaction", "codebase",
	"archive", "lowsrc", "dynsrc", "manifest", "icon", "srcdoc", "longdesc", "cite", "usemap",
	"base", // xml:base, which would make the relative URLs below it remote
]);
const LINKS = new Set(["a", "area"]);
/** Attributes that never load anything, whatever they hold (text, ids, geometry). */
const TEXT_ATTRIBUTES = new Set([
	"alt", "title", "class", "lang", "dir", "role", "value", "placeholder", "width", "height",
	"colspan", "rowspan", "start", "type", "target", "rel", "checked", "disabled", "open", "tabindex",
	"draggable", "spellcheck", "contenteditable", "xmlns", "version", "d", "viewbox", "points", "transform",
	"x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "dx", "dy", "focusable", "hidden",
	"preserveaspectratio", "align", "valign", "border", "cellpadding", "cellspacing", "scope", "headers",
	"span", "reversed", "datetime", "for", "label", "readonly", "selected", "size", "xlink", "space",
]);
/**
 * Styles, and SVG's paint and text attributes: they can load through a CSS function (`url(...)`),
 * which an escape can spell in many ways, so they stay only when they hold no function or escape.
 */
const STYLE_ATTRIBUTES = new Set([
	"style", "fill", "stroke", "color", "opacity", "fill-opacity", "fill-rule", "clip-rule", "clip-path", "mask",
	"filter", "stroke-width", "stroke-linecap", "stroke-linejoin", "stroke-dasharray", "stroke-dashoffset",
	"stroke-opacity", "stroke-miterlimit", "marker-start", "marker-mid", "marker-end", "stop-color",
	"stop-opacity", "offset", "font-family", "font-size", "font-weight", "font-style", "text-anchor",
	"dominant-baseline", "vector-effect", "shape-rendering", "visibility", "display", "overflow",
]);

/**
 * A style that lifts its element out of the answer (`position: fixed`, a `z-index`): an answer
 * could lay a transparent link over the whole window. A CSS comment could split the words.
 */
const OVERLAY_STYLE = /position\s*:\s*(?:fixed|absolute|sticky)|z-index|\/\*/i;

/**
 * Remove from `root` everything that would load a URL that is not a vault resource, and make
 * unsafe links text (see the module comment). Returns what was removed, for the pane's footer.
 */
export function sanitiseRendered(root: Element): string[] {
	const removed: string[] = [];
	for (const embed of Array.from(root.querySelectorAll(".internal-embed"))) embedAsLink(embed);
	for (const element of Array.from(root.querySelectorAll("*"))) {
		if (!root.contains(element)) continue; // inside something already removed
		const tag = element.localName.toLowerCase();
		if (ALWAYS_REMOVED.has(tag)) {
			removed.push(describe(element));
			element.remove();
			continue;
		}
		if (LINKS.has(tag)) {
			const href = hrefOf(element);
			element.removeAttribute("ping");
			if (href !== null && !isSafeLink(href)) {
				element.replaceWith(...Array.from(element.childNodes)); // the link's words, as text
				continue;
			}
		}
		sanitiseAttributes(element, tag, removed);
	}
	return removed;
}

/**
 * Make every link to a web page in `root` its words. A streamed answer (and one stopped before its
 * end) is the model's raw text, whose links the sidecar has not checked yet: the checked answer
 * keeps only pages the model was shown (agent/citations/shown_links.py). Links into the vault stay.
 */
export function webLinksAsText(root: Element): void {
	// Every link the allowlist kept: an image map's <area> and an SVG <a xlink:href> are links too.
	for (const link of Array.from(root.querySelectorAll([...LINKS].join(", ")))) {
		const href = hrefOf(link) ?? "";
		if (schemeOf(href) !== null && !isVaultResource(href)) link.replaceWith(...Array.from(link.childNodes));
	}
}

/** Where a link leads: its `href`, else (SVG) its `xlink:href`. */
function hrefOf(link: Element): string | null {
	return link.getAttribute("href") ?? link.getAttributeNS(XLINK, "href");
}

/**
 * Obsidian renders `![[Note]]` as an empty placeholder that it fills later, once the render
 * has returned, with the embedded note rendered in full: after this allowlist ran, so that
 * note's remote images would load. A streamed answer is raw model text (the sidecar turns
 * embeds into links in the final one only): every embed becomes a link to what it embeds.
 */
function embedAsLink(embed: Element): void {
	const target = embed.getAttribute("src") ?? "";
	// The embed's own document (no obsidian import here: `createEl` is Obsidian's).
	const link = embed.ownerDocument.createElementNS(XHTML, "a");
	link.className = "internal-link";
	link.setAttribute("data-href", target);
	link.setAttribute("href", target);
	link.textContent = embed.getAttribute("alt") || target;
	embed.replaceWith(link);
}

function sanitiseAttributes(element: Element, tag: string, removed: string[]): void {
	for (const attribute of Array.from(element.attributes)) {
		const name = attribute.localName.toLowerCase();
		const value = attribute.value;
		if (name.startsWith("on")) {
			removed.push(`${tag} ${name}="${value}"`);
			element.removeAttributeNode(attribute);
		} else if (name === "id" || name === "name") {
			// A name, and an id naming something the page's code reads (`getElementById`, `cookie`),
			// shadow it: `document.getElementById` becomes the answer's <img name=...>. An id
			// Obsidian gives (a footnote's "fn-1") keeps its place.
			if (name === "id" && !shadows(element, value)) continue;
			removed.push(`${tag} ${name}="${value}"`);
			element.removeAttributeNode(attribute);
		} else if (URL_ATTRIBUTES.has(name)) {
			if (LINKS.has(tag) && name === "href") continue; // judged as a link above
			if (urlsOf(name, value).every(isVaultResource)) continue;
			removed.push(`${tag} ${name}="${value}"`);
			if (MEDIA.has(tag)) {
				replaceWithPlaceholder(element);
				return;
			}
			element.removeAttributeNode(attribute); // a table's background: keep the table
		} else if (STYLE_ATTRIBUTES.has(name) || tag.startsWith("mjx-")) {
			// A style or SVG paint (fill="url(...)") loads through a CSS function, which an escape
			// can spell in many ways: any function or escape at all goes. MathJax's own elements
			// (`mjx-c`, `mjx-mo size="s"`) carry layout attributes of their own: judged the same.
			if (!/[(\\]/.test(value) && !OVERLAY_STYLE.test(value)) continue;
			removed.push(`${tag} ${name}="${value}"`);
			element.removeAttributeNode(attribute);
		} else if (!TEXT_ATTRIBUTES.has(name) && !name.startsWith("aria-") && !name.startsWith("data-")) {
			// Anything else goes, whatever it holds: an attribute nobody listed may be one that
			// fetches by itself (`attributionsrc` pings every URL it names when an image loads).
			removed.push(`${tag} ${name}="${value}"`);
			element.removeAttributeNode(attribute);
		}
	}
}

/** True when `id` names a property of the document, of a form or of the window it is shown in. */
function shadows(element: Element, id: string): boolean {
	return id in element.ownerDocument || id in HTMLFormElement.prototype || id in window;
}

/** Every URL an attribute names: a srcset's candidates (descriptors left out), or the value. */
function urlsOf(attribute: string, value: string): string[] {
	if (attribute === "srcset" || attribute === "imagesrcset" || attribute === "archive") {
		return value.split(/[\s,]+/).filter((word) => word !== "" && !/^\d+(?:\.\d+)?[wxh]$/i.test(word));
	}
	return [value];
}

function replaceWithPlaceholder(element: Element): void {
	const alt = element.getAttribute("alt") ?? "";
	const text = alt ? `(remote image not loaded: ${alt})` : "";
	element.replaceWith(element.ownerDocument.createTextNode(text));
}

function describe(element: Element): string {
	const html = element.outerHTML;
	return html.length > 200 ? `${html.slice(0, 200)}…` : html;
}
