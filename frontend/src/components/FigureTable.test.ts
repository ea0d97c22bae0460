import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { FigureTable, type FigureColumn } from './FigureTable';

interface Row {
  name: string;
  n: number;
}

const columns: FigureColumn<Row>[] = [
  { header: 'Name', cell: (r) => r.name, rowHeader: true },
  { header: 'Count', cell: (r) => r.n, className: (r) => (r.n > 1 ? 'many' : undefined) },
  { header: null, cell: () => createElement('span', { className: 'bar' }), decorative: true, className: 'bar-cell' },
];

function html(props: Partial<Parameters<typeof FigureTable<Row>>[0]>): string {
  return renderToStaticMarkup(createElement(FigureTable<Row>, { columns, rowKey: (r: Row) => r.name, ...props }));
}

describe('FigureTable', () => {
  const cases: { name: string; props: Partial<Parameters<typeof FigureTable<Row>>[0]>; want: string }[] = [
    {
      name: 'rows under their header, the row header a th, a decorative column hidden',
      props: { rows: [{ name: 'a', n: 1 }, { name: 'b', n: 2 }], caption: 'Things', testId: 't', className: 'extra' },
      want:
        '<table class="figure-table extra" data-testid="t"><caption>Things</caption>' +
        '<thead><tr><th scope="col">Name</th><th scope="col">Count</th><th scope="col" aria-hidden="true"></th></tr></thead>' +
        '<tbody><tr><th scope="row">a</th><td>1</td><td class="bar-cell" aria-hidden="true"><span class="bar"></span></td></tr>' +
        '<tr><th scope="row">b</th><td class="many">2</td><td class="bar-cell" aria-hidden="true"><span class="bar"></span></td></tr></tbody></table>',
    },
    {
      name: 'no row: the empty text across the table',
      props: { rows: [], empty: 'Nothing' },
      want:
        '<table class="figure-table"><thead><tr><th scope="col">Name</th><th scope="col">Count</th><th scope="col" aria-hidden="true"></th></tr></thead>' +
        '<tbody><tr><td colSpan="3">Nothing</td></tr></tbody></table>',
    },
    {
      name: 'no row and no empty text: an empty body',
      props: { rows: [] },
      want:
        '<table class="figure-table"><thead><tr><th scope="col">Name</th><th scope="col">Count</th><th scope="col" aria-hidden="true"></th></tr></thead>' +
        '<tbody></tbody></table>',
    },
    {
      name: "a row's class, title and test id",
      props: { rows: [{ name: 'a', n: 1 }], rowProps: (r: Row) => ({ className: `row-${r.n}`, title: 'why', 'data-testid': `row-${r.name}` }) },
      want:
        '<table class="figure-table"><thead><tr><th scope="col">Name</th><th scope="col">Count</th><th scope="col" aria-hidden="true"></th></tr></thead>' +
        '<tbody><tr class="row-1" title="why" data-testid="row-a"><th scope="row">a</th><td>1</td><td class="bar-cell" aria-hidden="true"><span class="bar"></span></td></tr></tbody></table>',
    },
    {
      name: 'groups, each a body under its heading; none without a label',
      props: {
        groups: [
          { key: 'x', label: 'X', rows: [{ name: 'a', n: 1 }], testId: 'g-x' },
          { key: 'y', label: null, rows: [{ name: 'b', n: 1 }] },
        ],
        empty: 'Nothing',
      },
      want:
        '<table class="figure-table"><thead><tr><th scope="col">Name</th><th scope="col">Count</th><th scope="col" aria-hidden="true"></th></tr></thead>' +
        '<tbody data-testid="g-x"><tr><th scope="rowgroup" colSpan="3" class="figure-group">X</th></tr>' +
        '<tr><th scope="row">a</th><td>1</td><td class="bar-cell" aria-hidden="true"><span class="bar"></span></td></tr></tbody>' +
        '<tbody><tr><th scope="row">b</th><td>1</td><td class="bar-cell" aria-hidden="true"><span class="bar"></span></td></tr></tbody></table>',
    },
    {
      name: 'no group: the empty text',
      props: { groups: [], empty: 'Nothing' },
      want:
        '<table class="figure-table"><thead><tr><th scope="col">Name</th><th scope="col">Count</th><th scope="col" aria-hidden="true"></th></tr></thead>' +
        '<tbody><tr><td colSpan="3">Nothing</td></tr></tbody></table>',
    },
  ];
  for (const c of cases) {
    it(c.name, () => expect(html(c.props)).toBe(c.want));
  }
});
