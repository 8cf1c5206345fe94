declare module '@tollgate/core' {
  interface AppErrorContexts {
    /** The middleware's options are unusable (unknown asset, scheme or payee, bad price or pattern). */
    middleware_config_invalid: { route?: string; detail?: string }
  }
}

export {}
