import type { AttributeValue, HrTime, TraceFlags } from "@opentelemetry/api";
import type { InstrumentationScope } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";

/**
 * OTLP's trace request in protobuf (opentelemetry-proto, `ExportTraceServiceRequest`), written span by span as each
 * span ends (D-378): the same bytes as the SDK's `ProtobufTraceSerializer` gives for the same spans (tested byte for
 * byte), without keeping the spans until the batch is sent. Field numbers are the proto's; every message nested in
 * another is written behind a one-byte length that is widened when the message turns out longer, so lengths are the
 * shortest varints, as the SDK writes them.
 */
export class OtlpSpanWriter {
  #buf = Buffer.allocUnsafe(64 * 1024);
  #pos = 0;
  #spans = 0;

  /** The spans written since the last request was taken. */
  get spans(): number {
    return this.#spans;
  }

  /** Appends `span` as one `ScopeSpans.spans` entry (field 2). */
  span(span: ReadableSpan): void {
    const context = span.spanContext();
    const at = this.#begin(2);
    this.#hex(1, context.traceId);
    this.#hex(2, context.spanId);
    const traceState = context.traceState?.serialize();
    if (traceState) this.#string(3, traceState);
    if (span.parentSpanContext?.spanId) this.#hex(4, span.parentSpanContext.spanId);
    this.#string(5, span.name);
    this.#tag(6, 0);
    this.#varint(span.kind + 1); // The proto's SpanKind counts from UNSPECIFIED, the API's from INTERNAL.
    this.#time(7, span.startTime);
    this.#time(8, span.endTime);
    this.#attributes(9, span.attributes);
    this.#tag(10, 0);
    this.#varint(span.droppedAttributesCount);
    for (const event of span.events) {
      const eventAt = this.#begin(11);
      this.#time(1, event.time);
      this.#string(2, event.name);
      if (event.attributes) this.#attributes(3, event.attributes);
      this.#tag(4, 0);
      this.#varint(event.droppedAttributesCount ?? 0);
      this.#end(eventAt);
    }
    this.#tag(12, 0);
    this.#varint(span.droppedEventsCount);
    for (const link of span.links) {
      const linkAt = this.#begin(13);
      this.#hex(1, link.context.traceId);
      this.#hex(2, link.context.spanId);
      const linkState = link.context.traceState?.serialize();
      if (linkState) this.#string(3, linkState);
      if (link.attributes) this.#attributes(4, link.attributes);
      this.#tag(5, 0);
      this.#varint(link.droppedAttributesCount ?? 0);
      this.#tag(6, 5);
      this.#fixed32(spanFlags(link.context.traceFlags, link.context.isRemote));
      this.#end(linkAt);
    }
    this.#tag(14, 0);
    this.#varint(span.droppedLinksCount);
    const statusAt = this.#begin(15);
    if (span.status.message) this.#string(2, span.status.message);
    this.#tag(3, 0);
    this.#varint(span.status.code);
    this.#end(statusAt);
    this.#tag(16, 5);
    this.#fixed32(spanFlags(context.traceFlags, span.parentSpanContext?.isRemote));
    this.#end(at);
    this.#spans++;
  }

  /**
   * The `ExportTraceServiceRequest` holding the spans written since the last one, all of `header`'s resource and
   * scope, as a buffer of its own; the writer starts over.
   */
  request(header: RequestHeader): Buffer {
    const spans = this.#pos;
    const scopeSpans = header.scope.length + spans;
    const resourceSpans = header.resource.length + 1 + varintSize(scopeSpans) + scopeSpans;
    const out = Buffer.allocUnsafe(1 + varintSize(resourceSpans) + resourceSpans);
    let at = 0;
    out[at++] = (1 << 3) | 2; // ExportTraceServiceRequest.resource_spans
    at = writeVarint(out, at, resourceSpans);
    at += header.resource.copy(out, at);
    out[at++] = (2 << 3) | 2; // ResourceSpans.scope_spans
    at = writeVarint(out, at, scopeSpans);
    at += header.scope.copy(out, at);
    this.#buf.copy(out, at, 0, spans);
    this.#pos = 0;
    this.#spans = 0;
    return out;
  }

  /** Writes `Resource` (as `ResourceSpans.resource`) and `InstrumentationScope` (as `ScopeSpans.scope`), once. */
  static header(resource: Resource, scope: InstrumentationScope): RequestHeader {
    const writer = new OtlpSpanWriter();
    const resourceAt = writer.#begin(1);
    writer.#attributes(1, resource.attributes);
    writer.#tag(2, 0);
    writer.#varint(0);
    writer.#end(resourceAt);
    const resourceBytes = Buffer.from(writer.#buf.subarray(0, writer.#pos));
    writer.#pos = 0;
    const scopeAt = writer.#begin(1);
    writer.#string(1, scope.name);
    if (scope.version) writer.#string(2, scope.version);
    writer.#end(scopeAt);
    return { resource: resourceBytes, scope: Buffer.from(writer.#buf.subarray(0, writer.#pos)) };
  }

  #attributes(field: number, attributes: Readonly<Record<string, AttributeValue | undefined>>): void {
    for (const key in attributes) {
      if (!Object.hasOwn(attributes, key)) continue;
      const at = this.#begin(field);
      this.#string(1, key);
      const valueAt = this.#begin(2);
      this.#anyValue(attributes[key]);
      this.#end(valueAt);
      this.#end(at);
    }
  }

  /** `AnyValue`'s one field for `value`; nothing for a value OTLP has no field for (as the SDK). */
  #anyValue(value: unknown): void {
    switch (typeof value) {
      case "string":
        this.#string(1, value);
        return;
      case "boolean":
        this.#tag(2, 0);
        this.#varint(value ? 1 : 0);
        return;
      case "number":
        if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63) {
          this.#tag(3, 0);
          this.#varint(value);
        } else {
          this.#tag(4, 1);
          this.#ensure(8);
          this.#pos = this.#buf.writeDoubleLE(value, this.#pos);
        }
        return;
    }
    if (value instanceof Uint8Array) {
      this.#tag(7, 2);
      this.#varint(value.length);
      this.#ensure(value.length);
      this.#buf.set(value, this.#pos);
      this.#pos += value.length;
    } else if (Array.isArray(value)) {
      const arrayAt = this.#begin(5);
      for (const item of value) {
        const itemAt = this.#begin(1);
        this.#anyValue(item);
        this.#end(itemAt);
      }
      this.#end(arrayAt);
    }
  }

  #tag(field: number, wireType: number): void {
    this.#varint((field << 3) | wireType);
  }

  /** A length-delimited field's tag and a one-byte length, filled in by `#end`. */
  #begin(field: number): number {
    this.#tag(field, 2);
    this.#ensure(1);
    return this.#pos++;
  }

  #end(lengthAt: number): void {
    const length = this.#pos - lengthAt - 1;
    if (length < 0x80) {
      this.#buf[lengthAt] = length;
      return;
    }
    const wider = varintSize(length) - 1;
    this.#ensure(wider);
    this.#buf.copyWithin(lengthAt + 1 + wider, lengthAt + 1, this.#pos);
    this.#pos += wider;
    writeVarint(this.#buf, lengthAt, length);
  }

  #string(field: number, text: string): void {
    this.#tag(field, 2);
    const length = text.length;
    if (length < 0x80) {
      // Most strings are short ASCII: written by hand behind their one-byte length, else again as UTF-8 below.
      this.#ensure(length + 1);
      const buf = this.#buf;
      const start = this.#pos + 1;
      let i = 0;
      for (; i < length; i++) {
        const code = text.charCodeAt(i);
        if (code > 0x7f) break;
        buf[start + i] = code;
      }
      if (i === length) {
        buf[this.#pos] = length;
        this.#pos = start + length;
        return;
      }
    }
    const bytes = Buffer.byteLength(text, "utf8");
    this.#varint(bytes);
    this.#ensure(bytes);
    this.#pos += this.#buf.write(text, this.#pos, bytes, "utf8");
  }

  #hex(field: number, hex: string): void {
    this.#tag(field, 2);
    const bytes = hex.length >>> 1;
    this.#varint(bytes);
    this.#ensure(bytes);
    this.#pos += this.#buf.write(hex, this.#pos, bytes, "hex");
  }

  /** `fixed64` nanoseconds since the epoch. */
  #time(field: number, [seconds, nanos]: HrTime): void {
    this.#tag(field, 1);
    this.#ensure(8);
    this.#pos = this.#buf.writeBigUInt64LE(BigInt(seconds) * 1_000_000_000n + BigInt(nanos), this.#pos);
  }

  #fixed32(value: number): void {
    this.#ensure(4);
    this.#pos = this.#buf.writeUInt32LE(value >>> 0, this.#pos);
  }

  #varint(value: number): void {
    this.#ensure(10);
    this.#pos = writeVarint(this.#buf, this.#pos, value);
  }

  #ensure(bytes: number): void {
    if (this.#pos + bytes <= this.#buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#pos + bytes));
    this.#buf.copy(grown, 0, 0, this.#pos);
    this.#buf = grown;
  }
}

/** A request's resource and scope, written once for every request of one tracing. */
export interface RequestHeader {
  readonly resource: Buffer;
  readonly scope: Buffer;
}

/** `Span.flags` and `Link.flags`: the W3C trace flags, and whether the parent (or linked span) is remote. */
function spanFlags(traceFlags: TraceFlags, isRemote: boolean | undefined): number {
  return (traceFlags & 0xff) | 0x100 | (isRemote ? 0x200 : 0);
}

function varintSize(value: number): number {
  let size = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) size++;
  return size;
}

/** A varint at `at`, its end returned: an unsigned 32-bit value directly, a negative or larger one as 64 bits. */
function writeVarint(buf: Buffer, at: number, value: number): number {
  let pos = at;
  if (value >= 0 && value <= 0xffffffff) {
    let rest = value >>> 0;
    while (rest > 0x7f) {
      buf[pos++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    buf[pos++] = rest;
    return pos;
  }
  let rest = BigInt.asUintN(64, BigInt(value));
  while (rest > 0x7fn) {
    buf[pos++] = Number(rest & 0x7fn) | 0x80;
    rest >>= 7n;
  }
  buf[pos++] = Number(rest);
  return pos;
}
