/**
 * Where each object of a document is used: a walk from the trailer (/Root and /Info) through
 * every reachable object, as the reference validators walk it (EU DSS compares the object trees
 * of two revisions from the catalog down; pyHanko finds every path from the trailer to an
 * object an update overwrote). Each reference met is recorded with the role the path gives it:
 * a page's content, a widget's appearance, the DSS, the structure tree, and so on (ISO 32000-1
 * §7.7.2 catalog, §7.7.3 page tree, §12.5 annotations, §12.7 interactive forms, §14.7 structure).
 * modifications.ts then judges a changed object by every role it has: an appearance stream that
 * is also drawn by a page's content is page content, whatever else uses it (the "hide" shadow
 * attack: update a field and, with it, an object the page draws).
 *
 * Only ownership is followed. A reference to a page, an annotation, a field or the catalog from
 * anywhere but its owner (/Parent, /P, a destination, a /Popup, /Perms, an OBJR) is a link and
 * gives it no role: each of those has one place in the tree that says what it is.
 *
 * Streams are never decoded here: the dictionaries say what a stream uses (§7.8.3 resources).
 * Bounded: at most MAX_WALK_STEPS values visited; past that the caller is told, never a partial
 * index passed off as whole.
 */
import { PDFArray, PDFDict, PDFName, PDFRawStream, PDFRef, PDFString, PDFHexString, type PDFObject } from 'pdf-lib';
import { unlessDamaged } from '../pdf';
import type { PdfReader } from '../pdf';

export type Role =
  | 'catalog'
  | 'info'
  | 'metadata'
  | 'dss'
  | 'extensions'
  | 'struct'
  | 'names'
  | 'perms'
  | 'output-intents'
  | 'piece-info'
  | 'acroform'
  | 'fields'
  | 'field'
  | 'widget'
  | 'field-value'
  | 'lock'
  | 'dr'
  | 'page-tree'
  | 'page'
  | 'annots'
  | 'annotation'
  | 'appearance'
  | 'page-content'
  | 'document';

export interface Usage {
  role: Role;
  /**
   * The annotation or field an appearance, value or lock belongs to; the page of an /Annots
   * array; the field of a /Kids array (-1: the AcroForm's /Fields); -1 otherwise.
   */
  owner: number;
  /** The object whose value holds the reference; -1 for the trailer. */
  from: number;
}

/**
 * Values visited in one walk (each reference once per role and owner, each direct value inside
 * the objects visited). A document of 500 pages costs a few thousand; a million is a document
 * far larger than people sign, walked in about a second.
 */
export const MAX_WALK_STEPS = 2_000_000;

export class WalkTooLarge extends Error {}

interface Step {
  value: PDFObject;
  role: Role;
  owner: number;
  from: number;
  /** The edge is the one that says what the target is (Kids of the page tree, /Annots, /Fields, /Kids of a field). */
  owning: boolean;
}

const name = (d: PDFDict, key: string): string | undefined => {
  const v = d.get(PDFName.of(key));
  return v instanceof PDFName ? v.decodeText() : undefined;
};

/**
 * A page, a page tree node, the catalog, an annotation or a form field: objects a reference
 * from elsewhere only points at (§12.5.2: an annotation has /Subtype and /Rect; §12.7.3.1: a
 * field has /FT, or a partial name /T with a place in the field tree).
 */
function isStructural(target: PDFObject | undefined): boolean {
  if (!(target instanceof PDFDict)) return false;
  const type = name(target, 'Type');
  if (type === 'Page' || type === 'Pages' || type === 'Catalog') return true;
  if (target.get(PDFName.of('Subtype')) instanceof PDFName && target.get(PDFName.of('Rect')) instanceof PDFArray) return true;
  if (target.has(PDFName.of('FT'))) return true;
  const t = target.get(PDFName.of('T'));
  return (t instanceof PDFString || t instanceof PDFHexString) && (target.has(PDFName.of('Kids')) || target.has(PDFName.of('Parent')));
}

/** A field's kid: another field when it has a partial name (§12.7.3.1), else one of its widgets. */
function kidRole(reader: PdfReader, v: PDFObject): Role {
  const d = unlessDamaged(() => reader.resolve(v));
  return d instanceof PDFDict && !d.has(PDFName.of('T')) && name(d, 'Subtype') === 'Widget' ? 'widget' : 'field';
}

function annotRole(reader: PdfReader, v: PDFObject): Role {
  const d = unlessDamaged(() => reader.resolve(v));
  return d instanceof PDFDict && name(d, 'Subtype') === 'Widget' ? 'widget' : 'annotation';
}

function pageTreeRole(reader: PdfReader, v: PDFObject): Role {
  const d = unlessDamaged(() => reader.resolve(v));
  return d instanceof PDFDict && (name(d, 'Type') === 'Pages' || d.has(PDFName.of('Kids'))) ? 'page-tree' : 'page';
}

/** Keys that only point back or across (parents, pages, popups, struct element owners): never ownership. */
const LINK_KEYS = new Set(['Parent', 'P', 'Pg', 'Obj', 'Stm', 'StmOwn', 'Popup', 'IRT', 'Dest']);

const CATALOG_ROLES: Record<string, Role> = {
  Pages: 'page-tree',
  AcroForm: 'acroform',
  DSS: 'dss',
  Metadata: 'metadata',
  StructTreeRoot: 'struct',
  MarkInfo: 'struct',
  Names: 'names',
  Perms: 'perms',
  Extensions: 'extensions',
  OutputIntents: 'output-intents',
  PieceInfo: 'piece-info',
};

/** Roles whose whole subtree keeps the role. */
const SUBTREE_ROLES = new Set<Role>(['info', 'metadata', 'dss', 'extensions', 'output-intents', 'piece-info', 'dr', 'lock', 'appearance', 'page-content', 'document', 'names', 'struct', 'field-value']);

/**
 * The usages of every object reachable from the trailer of `reader`'s document, by object number.
 * Throws WalkTooLarge past MAX_WALK_STEPS.
 */
export function indexUsages(reader: PdfReader): Map<number, Usage[]> {
  const usages = new Map<number, Usage[]>();
  const visited = new Set<string>();
  const stack: Step[] = [];
  const root = reader.xref.root;
  if (root) stack.push({ value: root as PDFObject, role: 'catalog', owner: -1, from: -1, owning: true });
  if (reader.xref.info) stack.push({ value: reader.xref.info as PDFObject, role: 'info', owner: -1, from: -1, owning: true });
  let steps = 0;
  const push = (value: PDFObject, role: Role, owner: number, from: number, owning = false): void => {
    if (value instanceof PDFRef || value instanceof PDFDict || value instanceof PDFArray || value instanceof PDFRawStream) stack.push({ value, role, owner, from, owning });
  };

  while (stack.length > 0) {
    if (++steps > MAX_WALK_STEPS) throw new WalkTooLarge(`more than ${MAX_WALK_STEPS} references and values to walk`);
    const step = stack.pop()!;
    let { value, from } = step;
    const { role, owner } = step;
    if (value instanceof PDFRef) {
      const num = value.objectNumber;
      const target = unlessDamaged(() => reader.resolve(value));
      if (!step.owning && role !== 'catalog' && isStructural(target)) continue;
      const list = usages.get(num) ?? [];
      if (!list.some((u) => u.role === role && u.owner === owner)) {
        list.push({ role, owner, from });
        usages.set(num, list);
      }
      const key = `${num}:${role}:${owner}`;
      if (visited.has(key) || target === undefined) continue;
      visited.add(key);
      value = target;
      from = num;
    }
    const dict = value instanceof PDFRawStream ? value.dict : value instanceof PDFDict ? value : undefined;
    if (value instanceof PDFArray) {
      for (const item of value.asArray()) {
        // The arrays that own what they list: /Annots, /Fields or a field's /Kids, a page tree node's /Kids.
        if (role === 'annots') push(item, annotRole(reader, item), -1, from, true);
        else if (role === 'fields') push(item, kidRole(reader, item), -1, from, true);
        else if (role === 'page-tree') push(item, pageTreeRole(reader, item), -1, from, true);
        else push(item, role, owner, from);
      }
      continue;
    }
    if (!dict) continue;
    // The owner of what hangs from an annotation or a field is the object holding it.
    const self = from;
    for (const [k, v] of dict.entries()) {
      const key = k.decodeText();
      switch (role) {
        case 'catalog':
          push(v, CATALOG_ROLES[key] ?? 'document', -1, from, key === 'Pages' || key === 'AcroForm');
          break;
        case 'page-tree':
          if (key === 'Kids') {
            push(v, 'page-tree', -1, from, true);
          } else if (key !== 'Parent') {
            // Inheritable attributes (§7.7.3.4: /Resources, /MediaBox…) are the pages' content.
            push(v, 'page-content', -1, from);
          }
          break;
        case 'page':
          if (key === 'Annots') push(v, 'annots', self, from, true);
          else if (key !== 'Parent') push(v, 'page-content', -1, from);
          break;
        case 'annots':
          break;
        case 'annotation':
          if (key === 'AP') push(v, 'appearance', self, from);
          else if (!LINK_KEYS.has(key)) push(v, 'annotation', self, from);
          break;
        case 'field':
        case 'widget':
          if (key === 'AP') push(v, 'appearance', self, from);
          else if (key === 'V' || key === 'DV') push(v, 'field-value', self, from);
          else if (key === 'Lock' || key === 'SV') push(v, 'lock', self, from);
          else if (key === 'Kids') push(v, 'fields', self, from, true);
          else if (!LINK_KEYS.has(key)) push(v, 'appearance', self, from);
          break;
        case 'acroform':
          if (key === 'Fields') push(v, 'fields', -1, from, true);
          else if (key === 'DR') push(v, 'dr', -1, from);
          else push(v, 'document', -1, from);
          break;
        case 'fields':
          break;
        case 'perms':
          // /DocMDP and /UR3 name signature dictionaries: their fields own them.
          break;
        default:
          if (!SUBTREE_ROLES.has(role) || LINK_KEYS.has(key)) break;
          // A signature reference's /Data names the object the transform covers, the catalog (§12.8.1 Table 253).
          if (role === 'field-value' && key === 'Data') break;
          // JavaScript run when the document opens (§12.6.4.16) is not a name like the others.
          push(v, role === 'names' && key === 'JavaScript' ? 'document' : role, owner, from);
      }
    }
  }
  return usages;
}
