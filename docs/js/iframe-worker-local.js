/* Search on a page opened from disk (file://): browsers refuse to start a Worker there, so the
   theme's search worker runs in a hidden frame of the page instead (a stand-in for the
   "iframe-worker" shim that the theme's offline plugin would otherwise fetch from the network).
   The worker's protocol is small: it sets self.onmessage and calls self.postMessage; the page
   calls postMessage and terminate and sets onmessage / onerror; messages are copied both ways. Served over http(s) the real
   Worker is used. Written for gradrepl's docs (docs/site.yml: extra.polyfills). */
(function () {
  if (location.protocol !== "file:") return;

  // a message is copied, as a real worker's is (the search worker changes the query it is
  // given: shared, the search box would lose what was typed)
  function copy(data) {
    return typeof structuredClone === "function" ? structuredClone(data)
      : JSON.parse(JSON.stringify(data));
  }

  function FrameWorker(url) {
    var worker = this;
    var frame = document.createElement("iframe");
    frame.style.display = "none";
    frame.setAttribute("aria-hidden", "true");
    document.documentElement.appendChild(frame);
    this._frame = frame;
    this._inbox = [];
    this._ready = false;
    this.onmessage = this.onerror = this.onmessageerror = null;
    var scope = frame.contentWindow;
    this._scope = scope;
    scope.postMessage = function (data) {             // the worker's self.postMessage
      data = copy(data);
      setTimeout(function () {
        if (worker.onmessage) worker.onmessage({ data: data, target: worker });
      }, 0);
    };
    var script = scope.document.createElement("script");
    script.src = new URL(url, location.href).href;
    script.onload = function () {
      worker._ready = true;
      worker._inbox.splice(0).forEach(function (data) { worker.postMessage(data); });
    };
    script.onerror = function (event) {
      if (worker.onerror) worker.onerror(event);
    };
    scope.document.head.appendChild(script);
  }

  FrameWorker.prototype.postMessage = function (data) {
    if (!this._ready) { this._inbox.push(data); return; }
    var scope = this._scope;
    data = copy(data);
    setTimeout(function () {
      if (typeof scope.onmessage === "function") scope.onmessage({ data: data });
    }, 0);
  };
  FrameWorker.prototype.terminate = function () {
    if (this._frame.parentNode) this._frame.parentNode.removeChild(this._frame);
  };
  FrameWorker.prototype.addEventListener = function (type, listener) {
    if (type === "message") this.onmessage = listener;
    if (type === "error") this.onerror = listener;
  };
  FrameWorker.prototype.removeEventListener = function () {};

  window.Worker = FrameWorker;
})();
