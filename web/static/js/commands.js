// commands.js: the commands an operator sends to a charge point from its detail screen, per
// OCPP version, each with the fields its payload needs. A dialog shows what will be sent and
// asks to confirm; the outcome (CallResult payload, CallError, refusal) is shown inline.
import { h, replace } from './dom.js';
import { post, enc } from './api.js';

const int = (v) => (v === '' || v === null || v === undefined ? undefined : Number.parseInt(v, 10));
const text = (name, label, value = '', extra = {}) => ({ name, label, kind: 'text', value, ...extra });
const choice = (name, label, options) => ({ name, label, kind: 'select', options });
const clean = (o) => JSON.parse(JSON.stringify(o));  // drops undefined members

export const COMMANDS = {
  '1.6': [
    { action: 'RemoteStartTransaction', label: 'Remote start',
      fields: [text('idTag', 'Id tag', '', { required: true }), text('connectorId', 'Connector', '1')],
      payload: (f) => clean({ idTag: f.idTag, connectorId: int(f.connectorId) }) },
    { action: 'RemoteStopTransaction', label: 'Remote stop',
      fields: [text('transactionId', 'Transaction id', '', { required: true })],
      payload: (f) => ({ transactionId: int(f.transactionId) }) },
    { action: 'Reset', label: 'Reset', danger: true, fields: [choice('type', 'Type', ['Soft', 'Hard'])],
      payload: (f) => ({ type: f.type }) },
    { action: 'UnlockConnector', label: 'Unlock', fields: [text('connectorId', 'Connector', '1', { required: true })],
      payload: (f) => ({ connectorId: int(f.connectorId) }) },
    { action: 'ChangeAvailability', label: 'Change availability',
      fields: [text('connectorId', 'Connector (0: whole charge point)', '0'), choice('type', 'Availability', ['Operative', 'Inoperative'])],
      payload: (f) => ({ connectorId: int(f.connectorId) ?? 0, type: f.type }) },
    { action: 'TriggerMessage', label: 'Trigger message',
      fields: [choice('requestedMessage', 'Message', ['StatusNotification', 'Heartbeat', 'BootNotification',
        'MeterValues', 'DiagnosticsStatusNotification', 'FirmwareStatusNotification']), text('connectorId', 'Connector (optional)')],
      payload: (f) => clean({ requestedMessage: f.requestedMessage, connectorId: int(f.connectorId) }) },
    { action: 'GetConfiguration', label: 'Get configuration',
      fields: [text('key', 'Keys, comma-separated (empty: all)')],
      payload: (f) => clean({ key: f.key ? f.key.split(',').map((k) => k.trim()).filter(Boolean) : undefined }) },
  ],
  '2.0.1': [
    { action: 'RequestStartTransaction', label: 'Request start',
      fields: [text('idToken', 'Id token', '', { required: true }), choice('type', 'Token type',
        ['ISO14443', 'ISO15693', 'Central', 'eMAID', 'KeyCode', 'Local', 'MacAddress', 'NoAuthorization']),
      text('evseId', 'EVSE (optional)', '1'), text('remoteStartId', 'Remote start id', String(Date.now() % 1000000))],
      payload: (f) => clean({ idToken: { idToken: f.idToken, type: f.type }, evseId: int(f.evseId),
        remoteStartId: int(f.remoteStartId) ?? 1 }) },
    { action: 'RequestStopTransaction', label: 'Request stop',
      fields: [text('transactionId', 'Transaction id', '', { required: true })],
      payload: (f) => ({ transactionId: f.transactionId }) },
    { action: 'Reset', label: 'Reset', danger: true,
      fields: [choice('type', 'Type', ['OnIdle', 'Immediate']), text('evseId', 'EVSE (optional)')],
      payload: (f) => clean({ type: f.type, evseId: int(f.evseId) }) },
    { action: 'UnlockConnector', label: 'Unlock',
      fields: [text('evseId', 'EVSE', '1', { required: true }), text('connectorId', 'Connector', '1', { required: true })],
      payload: (f) => ({ evseId: int(f.evseId), connectorId: int(f.connectorId) }) },
    { action: 'ChangeAvailability', label: 'Change availability',
      fields: [choice('operationalStatus', 'Availability', ['Operative', 'Inoperative']),
        text('evseId', 'EVSE (empty: whole station)'), text('connectorId', 'Connector (optional)')],
      payload: (f) => clean({ operationalStatus: f.operationalStatus,
        evse: f.evseId ? { id: int(f.evseId), connectorId: int(f.connectorId) } : undefined }) },
    { action: 'TriggerMessage', label: 'Trigger message',
      fields: [choice('requestedMessage', 'Message', ['StatusNotification', 'Heartbeat', 'BootNotification',
        'MeterValues', 'TransactionEvent', 'LogStatusNotification', 'FirmwareStatusNotification']),
      text('evseId', 'EVSE (optional)'), text('connectorId', 'Connector (optional)')],
      payload: (f) => clean({ requestedMessage: f.requestedMessage,
        evse: f.evseId ? { id: int(f.evseId), connectorId: int(f.connectorId) } : undefined }) },
    { action: 'GetVariables', label: 'Get variables',
      fields: [text('component', 'Component', 'OCPPCommCtrlr', { required: true }),
        text('variable', 'Variable', 'HeartbeatInterval', { required: true })],
      payload: (f) => ({ getVariableData: [{ component: { name: f.component }, variable: { name: f.variable } }] }) },
  ],
};

export function commandsFor(version) {
  return COMMANDS[version === '2.0.1' ? '2.0.1' : '1.6'];
}

// Asks in the page's <dialog>; resolves with the field values, or null when cancelled.
export function confirmDialog(title, fields, describe) {
  const dialog = document.getElementById('confirm-dialog');
  const body = document.getElementById('confirm-body');
  document.getElementById('confirm-title').textContent = title;
  const inputs = {};
  const preview = h('pre', { class: 'mono', id: 'confirm-preview', 'aria-label': 'What will be sent' });
  const update = () => { preview.textContent = describe ? describe(values()) : ''; };
  const values = () => Object.fromEntries(Object.entries(inputs).map(([k, el]) => [k, el.value.trim()]));
  replace(body, fields.map((f) => {
    const id = `field-${f.name}`;
    const el = f.kind === 'select'
      ? h('select', { id, name: f.name }, f.options.map((o) => h('option', { value: o }, o)))
      : f.kind === 'textarea'
        ? h('textarea', { id, name: f.name, spellcheck: 'false' })
        : h('input', { id, name: f.name, required: f.required || null, autocomplete: 'off' });
    if (f.value !== undefined && f.kind !== 'select') el.value = f.value;
    el.addEventListener('input', update);
    el.addEventListener('change', update);
    inputs[f.name] = el;
    return h('label', { for: id }, f.label, el);
  }), describe ? preview : null);
  update();
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'ok' ? values() : null);
    }, { once: true });
    dialog.returnValue = '';
    dialog.showModal();
  });
}

// Renders a calls-route answer as text: what the charge point said.
export function outcomeText(action, answer, error) {
  if (error) {
    const b = error.body || {};
    const what = { 409: 'the charge point is not connected', 429: 'too many calls wait for this charge point',
      504: 'the charge point did not answer in time', 403: 'your role may not send commands',
      400: `the request was refused: ${b.description || b.error || ''}` }[error.status];
    return { ok: false, text: `${action}: ${what || error.message}` };
  }
  if (answer.result === 'CallResult') {
    const status = answer.payload && answer.payload.status;
    const accepted = !status || ['Accepted', 'Unlocked', 'Scheduled'].includes(status);
    return { ok: accepted, text: `${action}: ${status || 'answered'}`, payload: answer.payload };
  }
  if (answer.result === 'CallError') {
    return { ok: false, text: `${action}: CallError ${answer.code}${answer.description ? ` (${answer.description})` : ''}` };
  }
  return { ok: false, text: `${action}: ${answer.result}`, payload: answer.payload };
}

// Confirms, sends, and shows the outcome in `outcomeEl`; resolves with the answer (or null).
export async function runCommand(chargePointId, command, outcomeEl, presets = {}) {
  const fields = command.fields.map((f) => (presets[f.name] !== undefined ? { ...f, value: presets[f.name] } : f));
  const values = await confirmDialog(`${command.label} on ${chargePointId}?`, fields,
    (v) => `${command.action} ${JSON.stringify(command.payload(v))}`);
  if (!values) return null;
  replace(outcomeEl, h('div', { class: 'muted' }, `${command.action}: sent, waiting for the charge point…`));
  let answer = null, error = null;
  try {
    answer = await post(`/api/v1/charge-points/${enc(chargePointId)}/calls/${command.action}`, command.payload(values));
  } catch (e) { error = e; }
  const out = outcomeText(command.action, answer, error);
  replace(outcomeEl, h('div', { class: out.ok ? 'ok-box' : 'error-box', role: 'status' },
    out.text, out.payload ? h('pre', { class: 'mono' }, JSON.stringify(out.payload, null, 2)) : null));
  return answer;
}
