/**
 * The failure converter of an encrypting process (loaded by path: a Temporal worker takes its
 * failure converter as `failureConverterPath`). A failure's message and stack trace are not payloads,
 * so the payload codec alone leaves them in the clear in the history; with `encodeCommonAttributes`
 * they move into the failure's `encodedAttributes` payload, which the AES-256-GCM codec encrypts
 * (the history shows "Encoded failure"). Every SDK decodes them back for a process that has the key.
 */
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
