// A small watchdog for the page's own script. A module script that cannot be
// loaded (a 404, a cut connection) never runs, so it cannot say so itself:
// this classic script, loaded on its own, does. main.js marks
// <html data-js="started"> as its first act; if instead the script element
// reports an error, or the page finishes loading without it, or 30 s pass,
// the status line says what failed and offers «Reintentar» (a reload: the
// state is in the URL, so nothing is lost). No inline script anywhere. Its
// words are the page's (lab_core/page_text.py, in <script id="lab-text">).
(function () {
  "use strict";
  var LIMIT_MS = 30000; // the text says «30 s»
  var shown = false;

  function say(key, values) {
    var node = document.getElementById("lab-text");
    var table = {};
    try {
      table = node ? JSON.parse(node.textContent) : {};
    } catch (error) {
      table = {};
    }
    var text = table[key] || key;
    return text.replace(/\{(\w+)\}/g, function (whole, name) {
      return values && name in values ? String(values[name]) : whole;
    });
  }

  function started() {
    return document.documentElement.getAttribute("data-js") === "started";
  }

  function fail(detail) {
    if (shown || started()) return;
    var fault = document.getElementById("fault");
    var status = document.getElementById("status");
    if (!fault || !status) return;
    shown = true;
    status.setAttribute("data-phase", "error");
    document.getElementById("status-text").textContent = say("status.failed");
    fault.querySelector(".fault-title").textContent = say("fault.page");
    fault.querySelector(".fault-advice").textContent = say("fault.page.advice");
    fault.querySelector(".fault-detail").textContent = detail;
    var button = fault.querySelector(".fault-retry");
    button.hidden = false;
    button.disabled = false;
    button.addEventListener("click", function () { location.reload(); });
    fault.hidden = false;
  }

  // Resource errors do not bubble: listen in the capture phase.
  window.addEventListener("error", function (event) {
    var target = event.target;
    if (target && target.tagName === "SCRIPT") {
      fail(say("detail.script", { src: target.getAttribute("src") || "script" }));
    }
  }, true);
  window.addEventListener("load", function () {
    setTimeout(function () { fail(say("detail.never_ran")); }, 0);
  });
  setTimeout(function () { fail(say("detail.no_answer")); }, LIMIT_MS);
}());
