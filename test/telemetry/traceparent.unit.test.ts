/**
 * The W3C traceparent header an agent sends with its tool calls (decision 287): formatting from a
 * trace id, span id and sampling decision, and reading one back as a receiver does.
 */
import { formatTraceparent, parseTraceparent, runSpanId, runTraceId } from '../../src/telemetry/trace-ids';
import { currentTraceHeaders, withoutTraceHeaders, withTraceHeaders } from '../../src/platform/trace-context';
import { nextTurn } from '../helpers/wait';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('formatTraceparent', () => {
  it('writes version 00, the ids and flags 01 when sampled, 00 when not', () => {
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, sampled: true })).toBe(`00-${TRACE}-${SPAN}-01`);
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, sampled: false })).toBe(`00-${TRACE}-${SPAN}-00`);
  });

  it('takes the deterministic run ids', () => {
    const header = formatTraceparent({ traceId: runTraceId('wf', 'run'), spanId: runSpanId('wf', 'run'), sampled: true });
    expect(header).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(parseTraceparent(header)).toEqual({ traceId: runTraceId('wf', 'run'), spanId: runSpanId('wf', 'run'), sampled: true });
  });

  it('refuses ids that are not lowercase hex of the right length, or all zeros', () => {
    expect(() => formatTraceparent({ traceId: TRACE.toUpperCase(), spanId: SPAN, sampled: true })).toThrow(/trace id/);
    expect(() => formatTraceparent({ traceId: TRACE.slice(1), spanId: SPAN, sampled: true })).toThrow(/trace id/);
    expect(() => formatTraceparent({ traceId: '0'.repeat(32), spanId: SPAN, sampled: true })).toThrow(/trace id/);
    expect(() => formatTraceparent({ traceId: TRACE, spanId: `${SPAN}0`, sampled: true })).toThrow(/span id/);
    expect(() => formatTraceparent({ traceId: TRACE, spanId: '0'.repeat(16), sampled: true })).toThrow(/span id/);
  });
});

describe('parseTraceparent', () => {
  it('reads the W3C example and the sampled bit of the flags', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`)).toEqual({ traceId: TRACE, spanId: SPAN, sampled: true });
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`)).toEqual({ traceId: TRACE, spanId: SPAN, sampled: false });
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-03`)?.sampled).toBe(true);
    expect(parseTraceparent(` 00-${TRACE}-${SPAN}-01 `)?.traceId).toBe(TRACE);
  });

  it('reads a later version by its first four fields', () => {
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-01-what-comes-next`)).toEqual({ traceId: TRACE, spanId: SPAN, sampled: true });
  });

  it('rejects malformed values, version ff, extra fields on version 00 and all-zero ids', () => {
    for (const bad of [
      undefined,
      '',
      `00-${TRACE}-${SPAN}`,
      `00-${TRACE.toUpperCase()}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}-1`,
      `ff-${TRACE}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}-01-extra`,
      `00-${'0'.repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
    ]) expect(parseTraceparent(bad)).toBeUndefined();
  });
});

describe('trace headers of the call in progress', () => {
  it('are the ones given to withTraceHeaders, across awaits, and none outside or under withoutTraceHeaders', async () => {
    expect(currentTraceHeaders()).toEqual({});
    const header = { traceparent: `00-${TRACE}-${SPAN}-01` };
    const seen = await withTraceHeaders(header, async () => {
      await nextTurn(); // across a macrotask boundary, not only a microtask
      const inner = withoutTraceHeaders(() => currentTraceHeaders());
      return { after: currentTraceHeaders(), inner };
    });
    expect(seen).toEqual({ after: header, inner: {} });
    expect(currentTraceHeaders()).toEqual({});
  });
});
