/* The search page: Pagefind's index of the site (made by `make book` into pagefind/),
   searched in the browser. The words come from the page's own field or from the
   address (search.html?q=words), where every page's search field sends them. */
(function () {
  "use strict";

  const MAX_RESULTS = 20;
  let pagefind = null;

  function element(tag, attributes, text) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* Pagefind's excerpt is text with <mark> around the words found; keep only those. */
  function excerpt(html) {
    const out = element("p", {class: "full-text-excerpt"});
    const parsed = new DOMParser().parseFromString(`<p>${html}</p>`, "text/html").body.firstChild;
    for (const node of parsed.childNodes) {
      if (node.nodeName === "MARK") out.append(element("mark", {}, node.textContent));
      else out.append(node.textContent);
    }
    return out;
  }

  async function load() {
    if (pagefind) return pagefind;
    const here = new URL(".", window.location.href);  // search.html is at the site's root
    pagefind = await import(new URL("pagefind/pagefind.js", here).href);
    await pagefind.options({baseUrl: here.pathname});
    return pagefind;
  }

  async function search(words, status, list) {
    list.textContent = "";
    if (!words.trim()) {
      status.textContent = "";
      return;
    }
    status.textContent = `Searching for ${words}…`;
    let index;
    try {
      index = await load();
    } catch (error) {
      status.textContent = "The search index could not be loaded. It is read from the " +
        "site's own pagefind/ folder, which a browser only allows from a web server, not " +
        "from a file opened on disk; serve the site (python -m http.server) or use your " +
        "browser's find on a page.";
      return;
    }
    const found = await index.search(words);
    const pages = await Promise.all(found.results.slice(0, MAX_RESULTS).map((r) => r.data()));
    list.textContent = "";
    for (const page of pages) {
      const item = element("li");
      const link = element("a", {href: page.url}, page.meta.title || page.url);
      item.append(link);
      const sections = (page.sub_results || []).filter((s) => s.url !== page.url).slice(0, 3);
      if (sections.length) {
        const sub = element("ul", {class: "full-text-sections"});
        for (const section of sections) {
          const li = element("li");
          li.append(element("a", {href: section.url}, section.title), excerpt(section.excerpt));
          sub.append(li);
        }
        item.append(sub);
      } else {
        item.append(excerpt(page.excerpt));
      }
      list.append(item);
    }
    const n = found.results.length;
    status.textContent = n === 0 ? `No page contains ${words}.`
      : `${n} ${n === 1 ? "page contains" : "pages contain"} ${words}` +
        (n > MAX_RESULTS ? `; the first ${MAX_RESULTS} are listed.` : ".");
  }

  function start() {
    const form = document.querySelector(".full-text-search-form");
    if (!form) return;
    const input = form.querySelector("input[name=q]");
    const status = document.getElementById("full-text-status");
    const list = document.getElementById("full-text-results");
    const words = new URLSearchParams(window.location.search).get("q") || "";
    input.value = words;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const url = new URL(window.location.href);
      url.searchParams.set("q", input.value);
      window.history.replaceState(null, "", url);
      search(input.value, status, list);
    });
    if (words) search(words, status, list);
    else input.focus();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
