/** The hosted pages' stylesheet, inlined into each page (small; no external asset). */
export const checkoutCss = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7}
main{max-width:30rem;margin:0 auto;padding:1rem}
.card{background:#fff;border:1px solid #d0d4da;border-radius:12px;padding:1.25rem;margin-bottom:1rem}
header{display:flex;align-items:center;gap:.75rem;margin-bottom:1rem}
header img{width:40px;height:40px;border-radius:8px;object-fit:contain}
.merchant{font-weight:600}
.badge{margin-left:auto;background:#fff4ce;color:#5c4400;border:1px solid #c9a400;border-radius:999px;padding:0 .6rem;font-size:.8rem}
h1{font-size:1.35rem;margin:0 0 .25rem}
.amount{font-size:1.75rem;font-weight:700;margin:.5rem 0 0}
.crypto{color:#3d4450;margin:0}
.status{font-weight:600;padding:.6rem .8rem;border-radius:8px;background:#e8f0fe;color:#0b3d91}
.status[data-status=paid]{background:#e6f4ea;color:#0d5223}
.status[data-status=expired],.status[data-status=failed],.status[data-status=underpaid]{background:#fce8e6;color:#8c1d18}
.status[data-status=partial]{background:#fff4ce;color:#5c4400}
label,.label{display:block;font-weight:600;margin-bottom:.25rem}
select,button,.button{font:inherit;min-height:44px;border-radius:8px}
select{width:100%;padding:.5rem;border:1px solid #6b7280;background:#fff;color:#1a1a1a}
button,.button{display:inline-block;border:0;padding:.5rem 1rem;background:#0b57d0;color:#fff;cursor:pointer;text-decoration:none;text-align:center}
button.secondary{background:#fff;color:#0b57d0;border:1px solid #0b57d0;min-height:36px;padding:.25rem .75rem}
:focus-visible{outline:3px solid #f29900;outline-offset:2px}
.qr{display:block;width:100%;max-width:240px;margin:0 auto 1rem}
.qr svg{width:100%;height:auto}
.field{margin:.75rem 0}
.value{display:flex;gap:.5rem;align-items:center}
code{font:14px/1.4 ui-monospace,Menlo,Consolas,monospace;word-break:break-all;background:#f4f5f7;padding:.35rem .5rem;border-radius:6px;flex:1}
.full{width:100%;margin-top:.75rem}
.muted{color:#4b5563;font-size:.9rem}
.error{color:#8c1d18;font-weight:600}
a{color:#0b57d0}
footer{text-align:center;font-size:.85rem;color:#4b5563}
input{font:inherit;width:100%;min-height:44px;padding:.5rem;border:1px solid #6b7280;border-radius:8px;background:#fff;color:#1a1a1a}
input[aria-invalid=true]{border:2px solid #8c1d18}
fieldset{border:0;padding:0;margin:0 0 1rem}
legend{font-weight:600;margin-bottom:.5rem}
.product{display:flex;gap:.75rem;align-items:center;justify-content:space-between;padding:.5rem 0;border-top:1px solid #e5e7eb}
.product input[type=number]{width:5.5rem}
.product input[type=checkbox]{width:24px;min-height:24px;height:24px}
.hero{width:100%;max-height:200px;object-fit:cover;border-radius:8px;margin-bottom:.75rem}
`

/**
 * The hosted checkout's script, inlined with a CSP nonce: the expiry countdown, the copy buttons and
 * the live status from `/checkout/{reference}/events` (server-sent events), then the redirect.
 */
export const checkoutScript = `
(function(){
  var root=document.querySelector('[data-reference]');if(!root){return}
  var statusEl=document.getElementById('status');
  var countdown=document.getElementById('countdown');
  if(countdown){
    var end=Date.parse(countdown.getAttribute('datetime'));
    var tick=function(){var s=Math.max(0,Math.floor((end-Date.now())/1000));
      var m=Math.floor(s/60),r=s%60;countdown.textContent=m+':'+(r<10?'0':'')+r;
      if(s===0){clearInterval(timer)}};
    var timer=setInterval(tick,1000);tick();
  }
  document.querySelectorAll('[data-copy]').forEach(function(button){
    button.addEventListener('click',function(){
      var text=document.getElementById(button.getAttribute('data-copy')).textContent;
      var done=function(){var label=button.textContent;button.textContent='Copied';setTimeout(function(){button.textContent=label},1500)};
      if(navigator.clipboard){navigator.clipboard.writeText(text).then(done,function(){})}
    });
  });
  var initial=root.getAttribute('data-status');
  var terminal={paid:1,underpaid:1,expired:1,failed:1};
  if(terminal[initial]||!window.EventSource){return}
  var source=new EventSource(root.getAttribute('data-events'));
  source.addEventListener('status',function(event){
    var data=JSON.parse(event.data);
    statusEl.textContent=data.statusText;statusEl.setAttribute('data-status',data.status);
    root.setAttribute('data-status',data.status);
    var due=document.getElementById('due');
    if(due){
      due.hidden=!data.amountDue;
      document.getElementById('amount-received').textContent=data.amountReceived||'';
      document.getElementById('amount-due').textContent=data.amountDue||'';
    }
    if(data.status==='paid'&&data.redirectUrl){source.close();setTimeout(function(){location.assign(data.redirectUrl)},1500);return}
    if(terminal[data.status]||(initial==='choose'&&data.status!=='choose')){source.close();setTimeout(function(){location.reload()},terminal[data.status]?1500:0)}
  });
})();
`
