// The "paste an issue" box: it grows with its text up to its CSS max-height (then scrolls), and
// counts the characters against the limit the server holds it to (data-limit). The count is of
// the text as the server measures it: trimmed, in code points, one per line break.
(function () {
  const box = document.getElementById("issue-text");
  const count = document.getElementById("issue-count");
  if (!box || !count) return;
  const limit = Number(box.dataset.limit);
  const words = (n) => n.toLocaleString("en-US");

  function update() {
    if (box.offsetParent !== null) {
      box.style.height = "auto";
      box.style.height = box.scrollHeight + box.offsetHeight - box.clientHeight + "px";
    }
    const used = Array.from(box.value.trim()).length;
    const over = used > limit;
    count.textContent = over
      ? `${words(used)} characters: ${words(used - limit)} over the limit of ${words(limit)}; paste its first part, or its title and traceback`
      : `${words(used)} of ${words(limit)} characters`;
    count.classList.toggle("over", over);
    box.setCustomValidity(over ? count.textContent : "");
  }

  box.addEventListener("input", update);
  // The box may open (details) after the page loads: its height is measured once it shows.
  box.closest("details")?.addEventListener("toggle", update);
  update();
})();
