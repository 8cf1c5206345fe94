import type { MobileMoneyInstitution } from '../types.js'

/** Mobile-money institutions of the sandbox corridors: M-Pesa and Airtel Money (KES); MTN, Vodafone, AirtelTigo (GHS). */
export const mobileMoneyInstitutions: readonly MobileMoneyInstitution[] = [
  { code: 'MPESA', name: 'M-Pesa', currency: 'KES', countryIsoCode: 'KE' },
  { code: 'AIRTEL_KE', name: 'Airtel Money', currency: 'KES', countryIsoCode: 'KE' },
  { code: 'MTN_GH', name: 'MTN MoMo', currency: 'GHS', countryIsoCode: 'GH' },
  { code: 'VODAFONE_GH', name: 'Vodafone Cash', currency: 'GHS', countryIsoCode: 'GH' },
  { code: 'AIRTELTIGO_GH', name: 'AirtelTigo Money', currency: 'GHS', countryIsoCode: 'GH' },
]
