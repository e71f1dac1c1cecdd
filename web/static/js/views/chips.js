// views/chips.js: status chips. The OCPP status name is always the chip's text (colour only
// reinforces it); the connector label comes first so a screen reader reads "1: Charging".
import { h } from '../dom.js';
import { ocppStatusName, statusClass } from '../format.js';

export function statusChip(status, label) {
  const name = ocppStatusName(status);
  return h('span', { class: `chip ${statusClass(status)}`, title: label ? `connector ${label}: ${name}` : name },
    label ? `${label}: ${name}` : name);
}
