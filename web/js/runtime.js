// Boots Pyodide, loads NumPy and installs the lab_core wheel.
// Returns `call(request) -> reply`, the page's only way to reach Python.
// The runtime's files and the wheel's name come from manifest.json, which
// the build writes next to index.html.

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.onload = () => resolve();
    script.onerror = () => reject(new Error(`no se pudo cargar ${src}`));
    document.head.append(script);
  });
}

class BootError extends Error {
  constructor(step, cause) {
    super(`${step}: ${cause && cause.message ? cause.message : cause}`);
    this.name = "BootError";
    this.step = step;
  }
}

async function step(name, onStep, work) {
  onStep(name);
  try {
    return await work();
  } catch (error) {
    throw new BootError(name, error);
  }
}

export async function bootRuntime(onStep) {
  const manifest = await step("Leyendo manifest.json", onStep, async () => {
    const response = await fetch("manifest.json", { cache: "no-cache" });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return response.json();
  });
  const { runtime } = manifest;
  const base = new URL(runtime.indexURL, document.baseURI).href;

  const pyodide = await step(`Arrancando Pyodide ${runtime.pyodide}`, onStep, async () => {
    await loadScript(base + "pyodide.js");
    return globalThis.loadPyodide({ indexURL: base });
  });

  await step("Cargando NumPy", onStep, () => pyodide.loadPackage(runtime.packages));

  const wheelURL = new URL(manifest.wheel, document.baseURI).href;
  await step("Instalando lab_core", onStep, () =>
    pyodide.runPythonAsync(
      `import micropip\nawait micropip.install(${JSON.stringify(wheelURL)})`,
    ),
  );

  const { render, publishRuntime } = await step("Importando lab_core", onStep, async () => {
    pyodide.runPython("from lab_core.browser import render, publish_runtime");
    return {
      render: pyodide.globals.get("render"),
      publishRuntime: pyodide.globals.get("publish_runtime"),
    };
  });

  publishRuntime();
  const versions = JSON.parse(globalThis.py_runtime);
  const info = Object.freeze({
    name: runtime.name,
    // The npm package's version: 0.17.1 reports itself as "0.17.0" internally.
    pyodide: runtime.pyodide,
    python: versions.python,
    numpy: versions.numpy,
  });

  // Python writes its reply on window.py_view_data; we read it back at once.
  function call(request) {
    render(JSON.stringify(request));
    return JSON.parse(globalThis.py_view_data);
  }

  return { call, info };
}
