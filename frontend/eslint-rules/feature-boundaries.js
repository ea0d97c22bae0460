// ESLint rule: a feature's internals are its own. Code outside
// src/features/<name>/ (another feature, lib/, components/, pages/, App)
// imports the feature through its index.ts only: `../spend`, never
// `../spend/useSpend`. Relative paths are resolved against the importing
// file, so the rule holds at any depth, for imports, re-exports and import().
import { dirname, relative, resolve, sep } from 'node:path';

/** The feature a path under src/features/ belongs to, and the rest of the path; null outside. */
function featureOf(file, featuresDir) {
  const rel = relative(featuresDir, file);
  if (rel === '' || rel.startsWith('..') || rel.startsWith(sep) || /^[a-zA-Z]:/.test(rel)) return null;
  const [name, ...rest] = rel.split(sep);
  return { name, rest: rest.join('/') };
}

/** @type {import('eslint').Rule.RuleModule} */
export const featureBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: "Import another feature through its index.ts only, never its internals." },
    schema: [],
    messages: {
      internal:
        "'{{source}}' reaches into the {{feature}} feature: import '{{index}}' (its index.ts) instead, or move what both need into lib/ or components/.",
    },
  },
  create(context) {
    const file = context.filename;
    const featuresDir = resolve(context.cwd, 'src', 'features');
    const own = featureOf(file, featuresDir);

    function check(node) {
      const source = node?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = featureOf(resolve(dirname(file), source), featuresDir);
      if (!target || target.name === '' || (own && own.name === target.name)) return;
      // The feature itself (its folder) or its index is what it exposes.
      if (target.rest === '' || /^index(\.tsx?)?$/.test(target.rest)) return;
      const index = source.slice(0, source.length - target.rest.length).replace(/\/$/, '');
      context.report({ node, messageId: 'internal', data: { source, feature: target.name, index } });
    }

    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};
