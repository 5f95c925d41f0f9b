import { h } from "./dom.js";

/** A modal confirmation (native <dialog>: focus is trapped and Escape cancels). */
export function confirmDialog(message: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h(
      "dialog",
      { class: "confirm", "aria-labelledby": "confirm-text" },
      h(
        "form",
        { method: "dialog" },
        h("p", { id: "confirm-text" }, message),
        h(
          "div",
          { class: "actions" },
          h("button", { value: "cancel", type: "submit" }, "Cancel"),
          h("button", { value: "ok", type: "submit", class: "danger" }, confirmLabel),
        ),
      ),
    );
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "ok");
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}
