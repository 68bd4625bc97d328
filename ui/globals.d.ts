// What the page finds on `window`: the Tauri shell's injected API (absent in a plain browser).
interface Window {
  __TAURI__?: any;
}
