/** One server-sent event as a client reads it. */
export interface SseEvent {
  event: string;
  data: string;
}

export interface SseClient {
  status: number;
  /** The error body of a refused stream. */
  body?: Record<string, unknown>;
  events: SseEvent[];
  /** Comment lines (`: heartbeat`). */
  comments: string[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens an event stream with fetch and reads it as it arrives (a real HTTP client, not EventSource). */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: abort.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  if (!res.ok || !res.body) {
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    return { status: res.status, body, events, comments, ended: Promise.resolve(), close: () => {} };
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const ended = (async () => {
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += value;
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = "message";
          const data: string[] = [];
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) comments.push(line.slice(1).trim());
            else if (line.startsWith("event: ")) event = line.slice(7);
            else if (line.startsWith("data: ")) data.push(line.slice(6));
          }
          if (data.length) events.push({ event, data: data.join("\n") });
        }
      }
    } catch {
      // Aborted by close().
    }
  })();
  return { status: res.status, events, comments, ended, close: () => abort.abort() };
}
