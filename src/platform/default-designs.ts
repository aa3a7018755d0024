import { newUuid } from '../config/ids';
import type { CachedDesign } from '../store/catalog-types';

/**
 * Designs created by `init --embedded`. The service fills {{signer_name}}, {{reason}},
 * {{location}} from the request fields and {{date}} with the signing time; the rest come from
 * `variables`. The second design shows a required variable.
 */
export function defaultDesigns(keys: { standard: string; approval: string }): CachedDesign[] {
  return [
    {
      design_key: keys.standard,
      name: 'Standard signature stamp',
      variables: [
        { name: 'signer_name', required: false, description: 'Name shown on the stamp (defaults to the signer_name field)' },
        { name: 'reason', required: false, description: 'Reason shown on the stamp (defaults to the reason field)' },
        { name: 'location', required: false, description: 'Place shown on the stamp (defaults to the location field)' },
        { name: 'reference', required: false, description: 'A document or case reference' },
      ],
      stamp: {
        page: 'last',
        x: 36,
        y: 36,
        width: 240,
        height: 72,
        lines: [
          { text: 'Digitally signed by {{signer_name}}', size: 10 },
          { text: 'Date: {{date}}', size: 8 },
          { text: 'Reason: {{reason}}', size: 8 },
          { text: 'Location: {{location}}', size: 8 },
          { text: '{{reference}}', size: 8 },
        ],
      },
    },
    {
      design_key: keys.approval,
      name: 'Approval stamp',
      variables: [
        { name: 'approval_id', required: true, description: 'Identifier of the approval being signed' },
        { name: 'signer_name', required: false, description: 'Name shown on the stamp' },
      ],
      stamp: {
        page: 'first',
        x: 36,
        y: 720,
        width: 220,
        height: 48,
        lines: [
          { text: 'Approved: {{approval_id}}', size: 11 },
          { text: '{{signer_name}} · {{date}}', size: 8 },
        ],
      },
    },
  ];
}

/** Fresh design keys (UUIDs) and the designs; the standard stamp is the default. */
export function createDefaultDesigns(): { designs: CachedDesign[]; defaultKey: string } {
  const keys = { standard: newUuid(), approval: newUuid() };
  return { designs: defaultDesigns(keys), defaultKey: keys.standard };
}
