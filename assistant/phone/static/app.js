// The phone keypad page: join with the PIN and a color, then show what the game asks this
// player (over a WebSocket) and send presses. The server decides what counts; this page only
// shows its answers. Nothing another color enters ever reaches this page.
"use strict";

const $ = (id) => document.getElementById(id);
let socket = null;
let shown = null;        // the last state shown
let signedOut = false;
let retryMs = 500;

function show(section) {
  for (const name of ["join", "waiting", "pad"]) $(name).hidden = name !== section;
}

function title(color) {
  return color.charAt(0).toUpperCase() + color.slice(1);
}

function say(id, text) {
  const element = $(id);
  element.textContent = text;
  element.classList.remove("flash");
  void element.offsetWidth;   // restart the flash
  if (text) element.classList.add("flash");
}

function buildColors(colors) {
  const box = $("colors");
  box.querySelectorAll("label").forEach((label) => label.remove());
  colors.forEach((color) => {
    const label = document.createElement("label");
    label.className = "color c-" + color;
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "color";
    input.value = color;
    input.id = "color-" + color;
    input.required = true;
    label.append(input, " " + title(color));
    box.append(label);
  });
}

async function post(path, data) {
  const response = await fetch(path, {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify(data),
    credentials: "same-origin",
  });
  let body = {};
  try { body = await response.json(); } catch (error) { body = {reason: "No answer from the box."}; }
  return {ok: response.ok, body};
}

async function join(event) {
  event.preventDefault();
  const chosen = document.querySelector("input[name=color]:checked");
  if (!chosen) { say("join-message", "Choose your color."); return; }
  const {ok, body} = await post("/api/join", {pin: $("pin").value, color: chosen.value});
  if (!ok) { say("join-message", body.reason || "Not joined."); return; }
  $("pin").value = "";
  say("join-message", "");
  signedOut = false;
  if (body.waiting) { $("waiting-text").textContent = body.text; show("waiting"); }
  connect();
}

async function leave() {
  signedOut = true;
  if (socket) socket.close();
  await post("/api/leave", {});
  shown = null;
  show("join");
  say("join-message", "You left. Join again with the PIN.");
}

function connect() {
  if (socket && socket.readyState <= WebSocket.OPEN) return;
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  socket = new WebSocket(scheme + location.host + "/ws");
  socket.onopen = () => { retryMs = 500; };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = () => {
    socket = null;
    if (!signedOut) {
      say("message", "Reconnecting...");
      setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, 5000);
    }
  };
}

function receive(message) {
  if (message.type === "state") showState(message);
  else if (message.type === "waiting") { $("waiting-text").textContent = message.text; show("waiting"); }
  else if (message.type === "refused") say("message", message.reason);
  else if (message.type === "taken") say("message", "");
  else if (message.type === "signed_out") {
    signedOut = true;
    shown = null;
    show("join");
    say("join-message", message.reason);
  }
}

function showState(state) {
  const yours = state.turn === "yours";
  const newTurn = yours && (!shown || shown.turn !== "yours" || shown.text !== state.text);
  show("pad");
  if (!shown || shown.color !== state.color || $("message").textContent === "Reconnecting...") say("message", "");
  $("badge").textContent = title(state.color);
  $("badge").className = "c-" + state.color;
  $("prompt").textContent = state.text;
  $("pad").classList.toggle("yours", yours);
  $("dots").textContent = yours ? "\u25CF".repeat(state.entered) + "\u25CB".repeat(state.presses - state.entered) : "";
  if (newTurn && navigator.vibrate) navigator.vibrate([200, 100, 200]);
  shown = state;
}

function press(button) {
  if (!socket || socket.readyState !== WebSocket.OPEN) { say("message", "Not connected yet. One moment."); return; }
  socket.send(JSON.stringify({type: "press", button}));
}

async function hello() {
  const response = await fetch("/api/hello", {cache: "no-store", credentials: "same-origin"});
  const data = await response.json();
  buildColors(data.colors);
  if (data.phone) {
    if (data.phone.waiting) show("waiting");
    connect();
  } else {
    show("join");
  }
}

$("join-form").addEventListener("submit", join);
$("leave").addEventListener("click", leave);
$("cancel").addEventListener("click", leave);
document.querySelectorAll("#keys button").forEach((key) => {
  key.addEventListener("click", () => press(key.dataset.button));
});
hello().catch(() => { show("join"); say("join-message", "The box does not answer. Is the game running?"); });
