/**
 * The failure converter of an encrypting process (loaded by path: a Temporal worker takes its
 * failure converter as `failureConverterPath`, and a workflow bundle is built with it). A failure's
 * message and stack trace are not payloads, so the payload codec alone leaves them in the clear in
 * the history; with `encodeCommonAttributes` they move into the failure's `encodedAttributes`
 * payload, which the AES-256-GCM codec encrypts (the history shows "Encoded failure"). Every SDK
 * decodes them back for a process that has the key. Inside a workflow bundle (the sealed bundle,
 * src/plugin/bundle.ts) it converts the failures workflows raise themselves; the codec that then
 * encrypts them runs outside the sandbox, so this module needs no key.
 */
import { DefaultFailureConverter } from '@temporalio/common';

/** Found in the code of every workflow bundle built with this converter (src/plugin/bundle.ts checks for it). */
export const SEALED_FAILURES_MARK = 'agentloom:workflow-failures-encoded:v1';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
