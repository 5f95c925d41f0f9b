import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { type Diagnostic, lintGutter, setDiagnostics } from "@codemirror/lint";
import { EditorState } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { jsonata, jsonataHighlight } from "./jsonata-language.js";

export interface CompileProblem {
  message: string;
  /** JSONata's 1-based offset of the offending token's last character. */
  position?: number;
  line?: number;
  column?: number;
}

export interface ExpressionEditor {
  view: EditorView;
  text(): string;
  setText(text: string): void;
  /** Underlines the compile error at its position (or clears it). */
  showProblem(problem: CompileProblem | null): void;
}

/**
 * The JSONata editor: highlighting, bracket matching, history, and the compile error underlined where the parser
 * stopped. Tab indents; Escape then Tab leaves the editor (CodeMirror's own keyboard escape hatch).
 */
export function expressionEditor(options: {
  parent: HTMLElement;
  doc: string;
  label: string;
  readOnly?: boolean;
  onChange: (text: string) => void;
}): ExpressionEditor {
  const view = new EditorView({
    parent: options.parent,
    state: EditorState.create({
      doc: options.doc,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        jsonata,
        EditorView.lineWrapping,
        syntaxHighlighting(jsonataHighlight),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        lintGutter(),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorState.readOnly.of(options.readOnly ?? false),
        EditorView.contentAttributes.of({ "aria-label": options.label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange(update.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    showProblem(problem) {
      const diagnostics: Diagnostic[] = problem ? [diagnostic(view.state.doc.toString(), problem)] : [];
      view.dispatch(setDiagnostics(view.state, diagnostics));
    },
  };
}

function diagnostic(text: string, problem: CompileProblem): Diagnostic {
  let end = text.length;
  if (problem.position !== undefined) end = Math.min(text.length, Math.max(1, problem.position));
  else if (problem.line !== undefined) {
    const lines = text.split("\n");
    const before = lines.slice(0, problem.line - 1).reduce((n, l) => n + l.length + 1, 0);
    end = Math.min(text.length, before + (problem.column ?? 1));
  }
  const from = Math.max(0, end - 1);
  return {
    from,
    to: Math.max(end, from + 1 > text.length ? from : from + 1),
    severity: "error",
    message: problem.message,
  };
}
