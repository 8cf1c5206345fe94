/** A bank of GET /recipients/banks (field names as the spec gives them). */
export type Bank = { name: string; slug: string; code: string; nibss_bank_code: string; country: 'NG' }

const bank = (name: string, slug: string, code: string, nibss: string): Bank => ({
  name,
  slug,
  code,
  nibss_bank_code: nibss,
  country: 'NG',
})

/** The sandbox list of Nigerian banks (CBN sort code and NIBSS institution code). */
export const nigerianBanks: readonly Bank[] = [
  bank('Access Bank', 'access-bank', '044', '000014'),
  bank('Ecobank Nigeria', 'ecobank-nigeria', '050', '000010'),
  bank('Fidelity Bank', 'fidelity-bank', '070', '000007'),
  bank('First Bank of Nigeria', 'first-bank-of-nigeria', '011', '000016'),
  bank('First City Monument Bank', 'first-city-monument-bank', '214', '000003'),
  bank('Guaranty Trust Bank', 'guaranty-trust-bank', '058', '000013'),
  bank('Keystone Bank', 'keystone-bank', '082', '000002'),
  bank('Kuda Microfinance Bank', 'kuda-bank', '50211', '090267'),
  bank('Moniepoint Microfinance Bank', 'moniepoint-mfb-ng', '50515', '090405'),
  bank('OPay', 'paycom', '999992', '100004'),
  bank('PalmPay', 'palmpay', '999991', '100033'),
  bank('Polaris Bank', 'polaris-bank', '076', '000008'),
  bank('Stanbic IBTC Bank', 'stanbic-ibtc-bank', '221', '000012'),
  bank('Sterling Bank', 'sterling-bank', '232', '000001'),
  bank('Union Bank of Nigeria', 'union-bank-of-nigeria', '032', '000018'),
  bank('United Bank For Africa', 'united-bank-for-africa', '033', '000004'),
  bank('Wema Bank', 'wema-bank', '035', '000017'),
  bank('Zenith Bank', 'zenith-bank', '057', '000015'),
]
