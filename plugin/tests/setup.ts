// Obsidian adds its DOM helpers (createEl, setText...) to every element before plugins load.
import { installDomHelpers } from "../stub/dom";

installDomHelpers();
