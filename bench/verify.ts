/** Canonical verify of a 4 KB transcript.update beside a bare HMAC-SHA256 of the same bytes. */
import { createHmac, randomBytes } from 'node:crypto';
import { canonicalJson } from '../lambdas/core/signature/canonical-json';
import { parseSigningSecrets, verifySignature, verifyWebhookBody } from '../lambdas/core/signature/verify';
import { signWebhook } from '../local/simulator/webhook-signer';
import { GOALS } from './goals';
import { fmt, pairedCost, verdict } from './stats';

/** Grows the utterance with `sentence` until the envelope reaches `targetBytes` on the wire. */
function transcriptEnvelopeOfSize(targetBytes: number, secret: string, sentence: string) {
  const base = {
    idempotency_key: '5f0c8a9e-2b1d-4c3e-9f8a-7b6c5d4e3f2a',
    bot_id: 'bot_3hfP4a8YvQwErTy',
    bot_metadata: { calendar_event_id: 'evt_01HZX', team: 'platform', schedule_version: 3 },
    trigger: 'transcript.update',
    data: {
      speaker_name: 'Zoë Ångström',
      speaker_uuid: '16778240',
      speaker_user_uuid: 'usr_8c1f',
      speaker_is_host: true,
      timestamp_ms: 1_767_225_600_123,
      duration_ms: 48_200,
      transcription: { transcript: '' },
    },
  };
  let text = '';
  for (;;) {
    base.data.transcription.transcript = text;
    const signed = signWebhook(base, secret);
    if (signed.body.length >= targetBytes) return signed;
    text += sentence;
  }
}

const UTTERANCES = {
  // English speech: an occasional typographic character, escaped on the wire as \uXXXX.
  english:
    "Okay, so the plan is to ship the billing migration on Thursday after the review, and we keep the old path behind a flag for a week. Any objections? Good — let's do that. ",
  // Accented text: four escaped characters in every ninety.
  accented: 'So the plan is to ship the café migration on Thursday — “after” the 2.0 review, right? ',
};

function measure(name: string, sentence: string): string[] {
  const secret = randomBytes(32).toString('base64');
  const { body, signature } = transcriptEnvelopeOfSize(4096, secret, sentence);
  const keys = parseSigningSecrets(secret);
  if (!verifySignature(canonicalJson(body), signature, keys).ok) throw new Error('benchmark webhook does not verify');
  const escapes = body.toString('latin1').split('\\u').length - 1;

  const iterations = 10_000;
  const rounds = 21;
  const { ratio, subjectOps, baselineOps } = pairedCost(
    () => void verifyWebhookBody(body, signature, keys),
    () =>
      void createHmac('sha256', keys[0] as Buffer)
        .update(body)
        .digest(),
    iterations,
    rounds,
  );
  return [
    `  ${name}: ${body.length}-byte transcript.update, ${escapes} \\u escapes`,
    `    canonical verify (render + HMAC + compare): ${fmt(subjectOps)} ops/s`,
    `    bare HMAC-SHA256 of the same bytes:            ${fmt(baselineOps)} ops/s`,
    `    cost ratio canonical/bare: ${fmt(ratio, 2)}× (${verdict(ratio, GOALS.verifyOverBareHmac)})`,
  ];
}

export function benchVerify(): string[] {
  return [
    'verify: 21 rounds × 10,000 verifications, each round paired with 10,000 bare HMACs; median ratio of the pairs',
    ...measure('English utterance', UTTERANCES.english),
    ...measure('accented utterance', UTTERANCES.accented),
  ];
}
