// A small watchdog for the page's own script. A module script that cannot be
// loaded (a 404, a cut connection) never runs, so it cannot say so itself:
// this classic script, loaded on its own, does. main.js marks
// <html data-js="started"> as its first act; if instead the script element
// reports an error, or the page finishes loading without it, or 30 s pass,
// the status line says what failed and offers «Reintentar» (a reload: the
// state is in the URL, so nothing is lost). No inline script anywhere.
(function () {
  "use strict";
  var LIMIT_MS = 30000;
  var shown = false;

  function started() {
    return document.documentElement.getAttribute("data-js") === "started";
  }

  function say(detail) {
    if (shown || started()) return;
    var fault = document.getElementById("fault");
    var status = document.getElementById("status");
    if (!fault || !status) return;
    shown = true;
    status.setAttribute("data-phase", "error");
    document.getElementById("status-text").textContent = "No se pudo arrancar el laboratorio.";
    fault.querySelector(".fault-title").textContent =
      "No se pudo cargar el programa de esta página.";
    fault.querySelector(".fault-advice").textContent =
      "Comprueba tu conexión y pulsa «Reintentar». Si sigue fallando, avisa a quien " +
      "publicó el laboratorio.";
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
      say("no se pudo cargar " + (target.getAttribute("src") || "un script") +
          " (o uno de los módulos que importa)");
    }
  }, true);
  window.addEventListener("load", function () {
    setTimeout(function () { say("la página cargó, pero js/main.js no llegó a ejecutarse"); }, 0);
  });
  setTimeout(function () { say("js/main.js no respondió en " + LIMIT_MS / 1000 + " s"); }, LIMIT_MS);
}());
