// The page's only way to the server: GET requests to the read-only JSON API, relative to the
// page's address (which carries the access token), answered as JSON or thrown as ApiError.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** GET api/<path> with the non-empty `params` as its query string. */
export async function get(path, params = {}) {
  const url = new URL(`api/${path}`, document.baseURI);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(name, String(value));
  }
  const response = await fetch(url, { headers: { Accept: "application/json" }, cache: "no-store" });
  let body;
  try {
    body = await response.json();
  } catch {
    body = { error: `${response.status} ${response.statusText}` };
  }
  if (!response.ok) throw new ApiError(response.status, body.error || response.statusText);
  return body;
}
