// The error of a form the settings and the persona check before sending.

/** A value the form cannot send, named as the server names fields. */
export interface FormError {
  field: string;
  message: string;
}
