/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The persona's handle on the platform, without @ (default infernal_ai). */
  readonly VITE_PERSONA_HANDLE?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
